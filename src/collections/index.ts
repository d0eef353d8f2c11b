// src/collections/: a set of IDs kept as 96-bit hashes (HashedStringSet, on murmur3.ts), for the row IDs
// an export has written and the cursors it has followed.

export { HashedStringSet } from './hashed-string-set.js';

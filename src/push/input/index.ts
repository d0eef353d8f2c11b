// push/input/: reading the input. Surface: readInput (read-input.ts) and the records, errors and format
// of input-record.ts (the formats and encodings a flag names are push/options.ts's), the input's encoding
// (utf8-text.ts) and numbers kept exact (exact-numbers.ts); the readers per format (read-json.ts,
// read-delimited.ts) are its own.

export { exactText } from './exact-numbers.js';
export { csvDelimiter, inputFormatOf, type InputRecord, type PlainObject, type ReadStats } from './input-record.js';
export { inputWarnings, readInput, type ReadOptions } from './read-input.js';
export { encodingNote } from './utf8-text.js';

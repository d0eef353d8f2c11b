/**
 * A key as it is compared: each character lower-cased on its own, so `Email` and `email` are one key.
 * Character by character (not String.prototype.toLowerCase on the whole key, whose Greek final sigma
 * depends on what follows), a key's fold is its parts' folds put together: the fold of `<key>.status`
 * is the fold of `<key>` and `.status`. DuckDB folds only A–Z, so keys unique here are unique there.
 */
export function foldKey(key: string): string {
  if (!/[^ -~]/.test(key)) return key.toLowerCase(); // printable ASCII: the same, faster
  let folded = '';
  for (const char of key) folded += char.toLowerCase();
  return folded;
}

/** A set of keys that ignores case (see foldKey). */
export class KeySet {
  private readonly folded = new Set<string>();

  constructor(keys: Iterable<string> = []) {
    for (const key of keys) this.add(key);
  }

  has(key: string): boolean {
    return this.folded.has(foldKey(key));
  }

  /** Adds `key`; false when the set had it already (ignoring case). */
  add(key: string): boolean {
    const folded = foldKey(key);
    if (this.folded.has(folded)) return false;
    this.folded.add(folded);
    return true;
  }
}

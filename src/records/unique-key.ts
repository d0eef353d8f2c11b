/**
 * `base` if no key in `taken` has it, else `base (2)`, `base (3)`, … (the first one free), which
 * it adds to `taken`. A label that itself looks like `X (2)` is skipped over, so keys stay unique.
 */
export function uniqueKey(base: string, taken: Set<string>): string {
  let key = base;
  for (let n = 2; taken.has(key); n += 1) key = `${base} (${n})`;
  taken.add(key);
  return key;
}

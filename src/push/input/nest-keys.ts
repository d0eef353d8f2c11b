// `--nest SEP`: keys `a.b` and `a.c` become `{a: {b, c}}`.

export type PlainObject = Record<string, unknown>;

/** Sets `key` as an own property even when it is `__proto__`. */
export function setOwn(target: PlainObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Builds nested objects from the keys that contain `sep`; returns the object itself when none does.
 * Throws NestConflictError when a key is both a value and a parent (`a` and `a.b`).
 */
export function nestKeys(object: PlainObject, sep: string): PlainObject {
  const keys = Object.keys(object);
  if (!keys.some((key) => key.includes(sep))) return object;
  const result: PlainObject = {};
  const parents = new Set<unknown>([result]);
  for (const key of keys) {
    const path = key.split(sep);
    let node = result;
    for (let i = 0; i < path.length - 1; i += 1) {
      const part = path[i]!;
      if (!Object.hasOwn(node, part)) {
        const created: PlainObject = {};
        setOwn(node, part, created);
        parents.add(created);
        node = created;
      } else if (parents.has(node[part])) {
        node = node[part] as PlainObject;
      } else {
        throw new NestConflictError(key, path.slice(0, i + 1).join(sep));
      }
    }
    const leaf = path[path.length - 1]!;
    if (Object.hasOwn(node, leaf)) throw new NestConflictError(key, path.join(sep));
    setOwn(node, leaf, object[key]);
  }
  return result;
}

export class NestConflictError extends Error {
  constructor(
    readonly key: string,
    readonly other: string,
  ) {
    super(`key "${key}" conflicts with "${other}": a key cannot hold both a value and nested keys`);
    this.name = 'NestConflictError';
  }
}

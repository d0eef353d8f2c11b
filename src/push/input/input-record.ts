import { formatFromPath } from '../../output/index.js';
import { UsageError } from '../../core/index.js';
import type { InputFormat } from '../options.js';

/** A record as a reader parsed it. */
export interface ParsedRecord {
  /** 1-based position of the record in the input (CSV/TSV: data rows after the header). */
  record: number;
  value: PlainObject;
  /** JSON input: the number literals a double could not hold, which `value` holds as placeholders (exact-numbers.ts) */
  numbers?: string[];
}

/** A record ready to send: its exact JSON text; with --key, its key or why it is left out. */
export interface InputRecord extends ParsedRecord {
  json: string;
  /** --key: the key as the service compares it (key/record-key.ts) */
  key?: string;
  /** --key: not sent, because its key repeats an earlier record's or it has none */
  excluded?: Exclusion;
}

export type Exclusion = { kind: 'duplicate'; of: number; key: string } | { kind: 'keyless'; reason: string };

/** Filled in while reading; `sha256` once the input has ended. */
export interface ReadStats {
  bytes: number;
  records: number;
  /** CSV/TSV with --relax-columns: rows whose non-empty fields past the header were dropped */
  extraFieldRows: number;
  sha256?: string;
}

export interface InputPlace {
  /** 1-based line of the input, when the format has lines. */
  line?: number;
  /** 1-based record number (CSV/TSV: data rows after the header). */
  record?: number;
}

/** Bad input (exit 2), with where it is: `data.csv: line 12: …`. */
export class InputError extends UsageError {
  readonly place: InputPlace;

  constructor(source: string, place: InputPlace, problem: string, hint?: string) {
    const where = [
      place.record !== undefined ? `record ${place.record}` : undefined,
      place.line !== undefined ? `line ${place.line}` : undefined,
    ].filter(Boolean);
    super(`${source}${where.length ? `: ${where.join(', ')}` : ''}: ${problem}`, { hint });
    this.name = 'InputError';
    this.place = place;
  }
}

/** `--input-format` when given, else the file's extension; stdin needs the flag. */
export function inputFormatOf(path: string, explicit: InputFormat | undefined): InputFormat {
  if (explicit) return explicit;
  const hint = 'give --input-format csv|tsv|ndjson|json';
  if (path === '-') throw new UsageError('cannot tell the format of stdin', { hint });
  const format = formatFromPath(path);
  if (!format) throw new UsageError(`cannot tell the format of ${path} from its extension`, { hint });
  return format;
}

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

/** The delimiters told apart from the header line, and their names (csvkit's and xsv's words for --delimiter). */
export const DELIMITERS: Readonly<Record<string, string>> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

/**
 * --delimiter (a character or its name), or else the CSV header line's (`csv`: the input's name; none
 * for TSV or JSON), said once through `say` when it is not a comma.
 */
export function csvDelimiter(
  given: string | undefined,
  csv: string | undefined,
  say: (line: string) => void,
): { delimiter?: string; onDelimiter?: (delimiter: string) => void } {
  if (given !== undefined) {
    const named = Object.entries(DELIMITERS).find(([char, name]) => given === char || given.toLowerCase() === name);
    const delimiter = named?.[0] ?? (given === '\\t' ? '\t' : undefined);
    if (!delimiter) throw new UsageError(`--delimiter: "${given}" is not one of , ; tab | (comma, semicolon, tab, pipe)`);
    return { delimiter };
  }
  if (csv === undefined) return {};
  let said = false;
  return {
    onDelimiter: (delimiter) => {
      if (said || delimiter === ',') return;
      said = true;
      const shown = delimiter === '\t' ? 'tab' : `"${delimiter}" (${DELIMITERS[delimiter]})`;
      say(
        `tds: reading ${csv === '-' ? 'stdin' : csv} with ${shown} as the delimiter, as its header line shows; --delimiter sets another\n`,
      );
    },
  };
}

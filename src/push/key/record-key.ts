import { CELL_MAX_CHARS } from '../../service/index.js';
import { exactText } from '../input/exact-numbers.js';
import type { PlainObject } from '../input/nest-keys.js';

/** What identifies a record: `--key FIELD[=COLUMN]`. */
export interface KeyMapping {
  /** The input key: a key of the record, or a dotted path into it (`address.email`). */
  field: string;
  /** The table column it fills, by label, name or ID (default: FIELD). */
  column: string;
}

export function parseKeyMapping(text: string): KeyMapping {
  const at = text.indexOf('=');
  const field = (at < 0 ? text : text.slice(0, at)).trim();
  const column = (at < 0 ? field : text.slice(at + 1)).trim();
  return { field, column };
}

export type RecordKey = { key: string } | { problem: string };

/**
 * A record's key as text: a string as it is, a number or boolean as its JSON text; anything else,
 * an empty value, or a key the service would cut in its answers (over 200 characters) is a problem.
 */
export function recordKey(value: PlainObject, numbers: readonly string[] | undefined, field: string): RecordKey {
  const raw = exactText(readPath(value, field), numbers);
  if (raw === undefined || raw === null || raw === '') return { problem: `it has no ${JSON.stringify(field)}` };
  if (typeof raw === 'object') return { problem: `its ${JSON.stringify(field)} is not a plain value` };
  const key = String(raw);
  if (key.trim() === '') return { problem: `its ${JSON.stringify(field)} is blank` };
  if ([...key].length > CELL_MAX_CHARS) {
    return {
      problem: `its ${JSON.stringify(field)} has more than ${CELL_MAX_CHARS} characters (the service cuts longer cells, so it cannot be compared)`,
    };
  }
  return { key };
}

/** `a.b` reads value.a.b unless the record has a key `a.b` itself. */
function readPath(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  const dot = path.indexOf('.');
  return dot < 0 ? undefined : readPath(record[path.slice(0, dot)], path.slice(dot + 1));
}

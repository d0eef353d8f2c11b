import { CELL_MAX_CHARS, type ColumnType, type Field } from '../../service/index.js';
import { exactText } from '../input/exact-numbers.js';
import type { PlainObject, InputRecord } from '../input/input-record.js';
import { UsageError } from '../../core/index.js';

// The record key (--key): which field of a record it is and the column it fills, each record's key
// read and compared as the service compares it, repeated and missing keys marked, the keys pushed.

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

/**
 * The table column a key is looked up in, and how: the filter operator its type accepts that takes
 * the most keys per rule (docs/service-api.md 4.5), and how the service compares (its `=` ignores case).
 */
export interface KeyColumn {
  field: Field;
  /** `in`: a list of keys per rule; `any`: containsAnyOf, up to 20 per rule, then checked exactly; `eq`: one key per rule */
  operator: 'in' | 'any' | 'eq';
}

const OPERATOR_BY_TYPE: Partial<Record<ColumnType, KeyColumn['operator']>> = {
  text: 'in',
  select: 'in',
  url: 'any',
  image: 'any',
  formula: 'any',
  email: 'eq',
  phone_number: 'eq',
  number: 'eq',
};

/** The column `ref` names (ID, then label, then name), checked to be one a key can be looked up in. */
export function keyColumn(fields: readonly Field[], ref: string): KeyColumn {
  const byId = fields.find((field) => field.id === ref);
  const byLabel = fields.filter((field) => field.label === ref);
  const byName = fields.filter((field) => field.name === ref);
  if (!byId && byLabel.length > 1) {
    throw new UsageError(`--key: the label "${ref}" belongs to ${byLabel.length} columns: ${byLabel.map((field) => field.id).join(', ')}`, {
      hint: 'name the column by its ID: --key FIELD=COLUMN_ID',
    });
  }
  const field = byId ?? byLabel[0] ?? (byName.length === 1 ? byName[0] : undefined);
  if (!field) {
    throw new UsageError(`--key: the table has no column "${ref}"`, {
      hint: 'give the column as --key FIELD=COLUMN (its label, name or ID; `tds schema TABLE` lists them)',
    });
  }
  const operator = OPERATOR_BY_TYPE[field.type];
  if (!operator) {
    throw new UsageError(
      `--key: the column "${field.label}" is of type ${field.type}, which cannot hold a key that the service can look up`,
      {
        hint: `a key column is of type ${Object.keys(OPERATOR_BY_TYPE).join(', ')}`,
      },
    );
  }
  return { field, operator };
}

/** The key as the service compares it: case does not matter; a number is compared as a number. */
export function foldKey(column: KeyColumn, key: string): string {
  if (column.field.type === 'number') {
    const number = Number(key.trim());
    return Number.isFinite(number) ? String(number) : key;
  }
  return key.toLowerCase();
}

export interface KeyedOptions {
  spec: KeyMapping;
  column: KeyColumn;
  /** `error`: the first repeated key stops the push (exit 2) */
  onDuplicate: 'skip' | 'error';
  source: string;
  /** collects each record's key in input order */
  keys?: PushedKeys;
}

/**
 * Each record's key, compared as the service compares it: a record whose key repeats an earlier
 * one's, or that has no usable key, is marked to be left out (counted as a duplicate, or rejected).
 */
export async function* keyedRecords(chunks: AsyncIterable<InputRecord[]>, options: KeyedOptions): AsyncGenerator<InputRecord[]> {
  const first = new Map<string, number>();
  for await (const chunk of chunks) {
    for (const input of chunk) {
      const found = recordKey(input.value, input.numbers, options.spec.field);
      if ('problem' in found) {
        input.excluded = { kind: 'keyless', reason: found.problem };
        continue;
      }
      if (options.column.field.type === 'number' && !Number.isFinite(Number(found.key.trim()))) {
        input.excluded = {
          kind: 'keyless',
          reason: `its ${JSON.stringify(options.spec.field)} is not a number, and the column "${options.column.field.label}" holds numbers`,
        };
        continue;
      }
      const key = foldKey(options.column, found.key);
      const earlier = first.get(key);
      if (earlier === undefined) {
        first.set(key, input.record);
        input.key = key;
        options.keys?.add(input.record, key);
      } else if (options.onDuplicate === 'error') {
        throw new UsageError(
          `${options.source}: records ${earlier} and ${input.record} have the same key ${JSON.stringify(found.key)} (--on-duplicate error)`,
          {
            hint: 'remove one of them, or leave out --on-duplicate error to send the first and skip the others',
          },
        );
      } else {
        input.excluded = { kind: 'duplicate', of: earlier, key: found.key };
      }
    }
    yield chunk;
  }
}

/**
 * The keys of the records a keyed push puts in the table, in input order (the rows --wait settled
 * waits for and -o writes): every record with a key of its own, less those rejected.
 */
export class PushedKeys {
  private readonly keys: string[] = [];
  private readonly records: number[] = [];
  private readonly rejected = new Set<number>();

  add(record: number, key: string): void {
    this.records.push(record);
    this.keys.push(key);
  }

  reject(records: Iterable<number>): void {
    for (const record of records) this.rejected.add(record);
  }

  /** Rejections another read of the same input saw. */
  rejectAll(other: PushedKeys): void {
    this.reject(other.rejected);
  }

  /** The first `count` keys: enough to tell how densely they pack into lookups. */
  sample(count: number): string[] {
    return this.keys.slice(0, count);
  }

  get count(): number {
    return this.keys.length;
  }

  /** The keys, in input order, of the records not rejected. */
  wanted(): string[] {
    if (this.rejected.size === 0) return this.keys;
    return this.keys.filter((_key, i) => !this.rejected.has(this.records[i]!));
  }
}

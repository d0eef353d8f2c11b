import type { Field } from '../service/index.js';
import { META_KEYS, type HeaderMode } from './shape-options.js';

// The one rule that makes the keys of every output (docs/cli.md "Row records"): an export's records, the
// Parquet columns, the mirror's columns and push's `--wait settled -o` all take their keys from keyFields.

/** The keys of the cells the service cut at 200 characters in a row (the mirror and Parquet). */
export const TRUNCATED_KEY = '_truncated';
/** The sync that wrote a row's version (the mirror). */
export const SYNC_ID_KEY = '_syncId';
/**
 * Keys no column takes, whichever output it is: the meta keys, and the keys tds generates (the mirror's,
 * its history's `_replacedBy`, `_change`, `_replacedAt`, and the lake's `_valid_from`, `_valid_to`).
 */
export const RESERVED_KEYS: readonly string[] = [
  ...META_KEYS,
  TRUNCATED_KEY,
  SYNC_ID_KEY,
  '_replacedBy',
  '_change',
  '_replacedAt',
  '_valid_from',
  '_valid_to',
];

export interface KeyedField {
  field: Field;
  /** The column's record key: its label (or name, or ID), made unique with ` (2)`, ` (3)`, … */
  key: string;
  /** `<key>.status` and `<key>.error`, for a column whose cells carry a run status (carriesStatus), written or not. */
  statusKey?: string;
  errorKey?: string;
}

/** A column whose cells carry a run status and an error: an action column (docs/service-api.md section 3). */
export function carriesStatus(field: Pick<Field, 'type'>): boolean {
  return field.type === 'action';
}

/**
 * Every column with its keys, in schema order, unique ignoring case together with the reserved keys.
 * A column keeps its label unless an earlier column has it (ignoring case), it is a reserved key, or it
 * is the `<key>.status` / `<key>.error` of an action column that keeps its own label; the others get
 * ` (2)`, ` (3)`, … in schema order: the first that is free, for an action column with its status and
 * error keys (a column labelled `Value (2)` keeps that key, so the second `Value` is `Value (3)`).
 * Made over the whole schema from the schema alone, a column's keys are the same whatever --no-meta,
 * --no-system, --columns or --status-columns leave out. `reserved`: more keys no column may take (the
 * columns of removed fields that a mirror keeps).
 */
export function keyFields(fields: readonly Field[], header: HeaderMode, reserved: Iterable<string> = []): KeyedField[] {
  const taken = new KeySet([...RESERVED_KEYS, ...reserved]);
  const keys = new Array<string | undefined>(fields.length);
  // The first column of each label. Only a shorter label makes a `.status` or `.error` key, so labels
  // taken shortest first meet every such key before they are given.
  const firsts = new KeySet();
  const candidates = fields.flatMap((field, i) => (!taken.has(field[header]) && firsts.add(field[header]) ? [i] : []));
  candidates.sort((a, b) => foldKey(fields[a]![header]).length - foldKey(fields[b]![header]).length);
  for (const i of candidates) {
    const field = fields[i]!;
    const label = field[header];
    if (taken.has(label)) continue;
    const all = keysOf(field, label);
    if (all.every((key) => !taken.has(key))) keys[i] = label;
    for (const key of all) taken.add(key);
  }
  return fields.map((field, i) => {
    let key = keys[i];
    if (key === undefined) {
      const base = field[header];
      key = base;
      for (let n = 2; keysOf(field, key).some((each) => taken.has(each)); n += 1) key = `${base} (${n})`;
      for (const each of keysOf(field, key)) taken.add(each);
    }
    return carriesStatus(field) ? { field, key, statusKey: `${key}.status`, errorKey: `${key}.error` } : { field, key };
  });
}

function keysOf(field: Field, key: string): string[] {
  return carriesStatus(field) ? [key, `${key}.status`, `${key}.error`] : [key];
}

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

import { expect } from 'vitest';
import type { Harness } from '../helpers/emulator-fixture.js';
import { expectedMirrorValue } from '../mirror/helpers.js';

// What a mirror table should hold at a moment, and what `tds diff` should say between two moments,
// computed here from exports of the service (the emulator) alone, not with the code under test.

export type Row = Record<string, unknown>;

/** How the mirror's columns come from an export's keys: renamed keys, and kept columns of removed fields. */
export interface MirrorShape {
  /** Field types by the mirror's key. */
  types: Map<string, string>;
  /** Export key → mirror key (a relabelled field's old label → its column). */
  renamed?: Record<string, string>;
  /** Mirror key → its values by row ID as the mirror kept them when the field was removed. */
  kept?: Record<string, Map<string, unknown>>;
  /** Every key of the mirror table (columns added later are NULL in rows of earlier exports). */
  keys: readonly string[];
}

/** An export's rows as the mirror holds them (the shape of `tds sql --format ndjson`), by row ID. */
export function mirrorView(exported: readonly Row[], shape: MirrorShape): Map<string, Row> {
  const view = new Map<string, Row>();
  for (const record of exported) {
    const row: Row = Object.fromEntries(shape.keys.map((key) => [key, null]));
    for (const [exportKey, value] of Object.entries(record)) {
      const key = shape.renamed?.[exportKey] ?? exportKey;
      if (!shape.keys.includes(key)) continue;
      row[key] = mirrorValue(key, value, shape.types);
    }
    for (const [key, values] of Object.entries(shape.kept ?? {})) row[key] = values.get(String(record._id)) ?? null;
    view.set(String(record._id), row);
  }
  return view;
}

function mirrorValue(key: string, value: unknown, types: Map<string, string>): unknown {
  if (value === null || value === undefined) return null;
  if (key === '_createdAt' || key === '_updatedAt') return new Date(value as string).toISOString();
  if (key.endsWith('.status')) return value;
  if (key.endsWith('.error')) return typeof value === 'string' ? value : JSON.stringify(value);
  if (key.startsWith('_')) return value;
  return expectedMirrorValue(types.get(key), value);
}

export interface DiffRecord {
  change: 'added' | 'updated' | 'deleted';
  _id: string;
  before: Row | null;
  after: Row | null;
}

const COMPARED = (key: string): boolean => key !== '_id' && key !== '_truncated' && key !== '_syncId';

/** The diff records two views make (without order): every row added, deleted, or with a value that differs. */
export function expectedDiff(before: Map<string, Row>, after: Map<string, Row>): DiffRecord[] {
  const records: DiffRecord[] = [];
  const side = (row: Row, keys?: readonly string[]): Row =>
    Object.fromEntries(Object.entries(row).filter(([key]) => COMPARED(key) && (!keys || keys.includes(key))));
  for (const [id, row] of after) {
    const old = before.get(id);
    if (!old) {
      records.push({ change: 'added', _id: id, before: null, after: side(row) });
      continue;
    }
    const differ = Object.keys(row).filter((key) => COMPARED(key) && JSON.stringify(row[key]) !== JSON.stringify(old[key]));
    if (differ.length > 0) records.push({ change: 'updated', _id: id, before: side(old, differ), after: side(row, differ) });
  }
  for (const [id, row] of before) if (!after.has(id)) records.push({ change: 'deleted', _id: id, before: side(row), after: null });
  return records;
}

const byId = (a: { _id: string }, b: { _id: string }): number => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** The diff records `tds diff` printed equal the expected ones, value by value (order aside). */
export function expectSameDiff(actual: DiffRecord[], expected: DiffRecord[]): void {
  expect([...actual].sort(byId)).toEqual([...expected].sort(byId));
}

/** A view equals the mirror rows (`tds sql … --format ndjson` of a macro), value by value. */
export function expectSameRows(actual: Row[], expected: Map<string, Row>): void {
  const rows = new Map(actual.map((row) => [String(row._id), row]));
  expect([...rows.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [id, row] of expected) {
    const got = rows.get(id)!;
    for (const [key, value] of Object.entries(row)) if (COMPARED(key)) expect(got[key], `${id} ${key}`).toEqual(value);
  }
}

export function ndjson(text: string): Row[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
}

/** `tds sql QUERY --format ndjson`, parsed. */
export async function sqlRows(harness: Harness, query: string): Promise<Row[]> {
  const result = await harness.tds(['sql', query, '--format', 'ndjson']);
  expect(result.code, result.stderr).toBe(0);
  return ndjson(result.stdout);
}

/** `tds diff ARGS --format ndjson`, parsed. */
export async function diffRecords(harness: Harness, args: string[]): Promise<DiffRecord[]> {
  const result = await harness.tds(['diff', ...args, '--format', 'ndjson']);
  expect(result.code, result.stderr).toBe(0);
  return ndjson(result.stdout) as unknown as DiffRecord[];
}

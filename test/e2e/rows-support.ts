import { parse } from 'csv-parse/sync';
import type { Cell, Field, Row, RowsPage, Table } from '../../src/service/index.js';
import { fetchJson, type Target } from './read-support.js';

// Expected records for the export end-to-end tests, computed from the emulator's own API answers
// by the rules of docs/cli.md "Row records" (independently of src/records).

export type Rec = Record<string, unknown>;

export async function tableNamed(target: Target, name: string): Promise<Table> {
  const { tables } = (await fetchJson(target, '/tables')) as unknown as { tables: Table[] };
  return tables.find((table) => table.name === name)!;
}

export async function schemaOf(target: Target, tableId: string): Promise<Field[]> {
  return ((await fetchJson(target, `/tables/${tableId}/schema`)) as unknown as { fields: Field[] }).fields;
}

/** Every row of GET …/rows, following the cursors. */
export async function allRows(target: Target, tableId: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = (await fetchJson(target, `/tables/${tableId}/rows?limit=100${query}`)) as unknown as RowsPage;
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/** A table as the service gives it: the table, its schema and every row. */
export interface ServiceTable {
  table: Table;
  fields: Field[];
  rows: Row[];
}

/** The table named `name`, its schema and its rows, as the service answers. */
export async function serviceTable(target: Target, name: string): Promise<ServiceTable> {
  const table = await tableNamed(target, name);
  return { table, fields: await schemaOf(target, table.id), rows: await allRows(target, table.id) };
}

/** The demo's Leads as the service gives it, with the records `tds rows Leads` must write of it. */
export async function leadsWithRecords(target: Target): Promise<ServiceTable & { records: Rec[] }> {
  const leads = await serviceTable(target, 'Leads');
  return { ...leads, records: expectedRecords(leads.rows, leads.fields, { keys: LEADS_KEYS }) };
}

/** Every row of POST …/rows/query for this body, following the cursors. */
export async function queryRows(target: Target, tableId: string, body: Record<string, unknown>): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const response: Response = await fetch(`${target.baseUrl}/tables/${tableId}/rows/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, ...(cursor ? { cursor } : {}) }),
    });
    if (response.status !== 200) throw new Error(`query: HTTP ${response.status} ${await response.text()}`);
    const page = (await response.json()) as RowsPage;
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

export interface ExpectOptions {
  /** Column keys in schema order, as docs/cli.md "Row records" gives them. */
  keys: string[];
  meta?: boolean;
  raw?: boolean;
}

/** The record docs/cli.md describes for each row. */
export function expectedRecords(rows: Row[], fields: Field[], options: ExpectOptions): Rec[] {
  return rows.map((row) => {
    const record: Rec = {};
    if (options.meta !== false) {
      Object.assign(record, { _id: row.id, _createdAt: row.createdAt, _updatedAt: row.updatedAt, _createdByUserId: row.createdByUserId });
    }
    fields.forEach((field, i) => {
      const cell = row.cells[field.id];
      record[options.keys[i]!] = options.raw ? (cell ?? null) : valueOf(cell, field);
    });
    return record;
  });
}

function valueOf(cell: Cell | undefined, field: Field): unknown {
  if (!cell) return null;
  const value = cell.value !== undefined && cell.value !== null ? cell.value : (cell.valuePreview ?? null);
  const label = (item: unknown): unknown => field.options?.find((option) => option.value === item)?.label ?? item;
  if (field.type === 'select') return label(value);
  if (field.type === 'multi_select' && Array.isArray(value)) return value.map(label);
  return value;
}

/** A record as CSV/TSV cells: null → empty, strings as is, the rest as JSON text. */
export function asText(record: Rec): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

export function parseDelimited(text: string, delimiter = ','): Record<string, string>[] {
  return parse(text, { columns: true, bom: true, delimiter, relax_column_count: false }) as Record<string, string>[];
}

export function parseNdjson(text: string): Rec[] {
  return text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Rec);
}

export const LEADS_KEYS = [
  'Name',
  'Email',
  'Email (2)',
  'Phone',
  'Website',
  'Logo',
  'Employees',
  'Qualified',
  'Last Contacted',
  'Stage',
  'Tags',
  'Address',
  'Score',
  'Enrich',
  'Owner',
  'Notes',
  'Created At',
];
export const EDGE_KEYS = ['_id (2)', 'Value', 'Value (2)', 'Value (3)', 'Long Text', 'Count', 'Choice'];

import { setTimeout as sleep } from 'node:timers/promises';
import { TdsError } from '../../src/core/errors.js';
import type { ExportRequest } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import type { Field, Row } from '../../src/service/index.js';
import { context, request, service, tempFile, type Service } from './export-fixtures.js';

// A table of every kind of column served in pages, for the Parquet export tests (parquet-export and
// parquet-resume): its rows, the request, a service that fails or pauses on a given call.

const fields: Field[] = [
  { id: 'f_name', name: 'name', label: 'Name', type: 'text', options: null, isSystem: false },
  { id: 'f_amount', name: 'amount', label: 'Amount', type: 'number', options: null, isSystem: false },
  { id: 'f_active', name: 'active', label: 'Active', type: 'boolean', options: null, isSystem: false },
  { id: 'f_due', name: 'due', label: 'Due', type: 'date', options: null, isSystem: false },
  {
    id: 'f_stage',
    name: 'stage',
    label: 'Stage',
    type: 'select',
    options: [
      { label: 'New', value: 'new' },
      { label: 'Won', value: 'won' },
    ],
    isSystem: false,
  },
  {
    id: 'f_tags',
    name: 'tags',
    label: 'Tags',
    type: 'multi_select',
    options: [
      { label: 'VIP', value: 'vip' },
      { label: 'SMB', value: 'smb' },
    ],
    isSystem: false,
  },
  { id: 'f_address', name: 'address', label: 'Address', type: 'object', options: null, isSystem: false },
  { id: 'f_enrich', name: 'enrich', label: 'Enrich', type: 'action', options: null, isSystem: false },
  { id: 'f_notes', name: 'notes', label: 'Notes', type: 'text', options: null, isSystem: false },
  { id: 'f_created', name: 'created_at', label: 'Created At', type: 'date', options: null, isSystem: true },
];

const created = (i: number): string => new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString();

/** Row i: a value of every type; Amount every 7th row and Due every 11th are text that does not fit; Notes cut every 5th. */
function typedRow(i: number): Row {
  return {
    id: `row_${String(i).padStart(3, '0')}`,
    tableId: 'tbl_1',
    createdAt: created(i),
    updatedAt: created(i + 1),
    createdByUserId: i % 2 ? 'usr_1' : null,
    cells: {
      f_name: { value: i === 4 ? `half \ud83d of an emoji` : `Name ${i}, "quoted"` },
      f_amount: { value: i % 7 === 0 ? 'n/a' : i * 1.5 },
      f_active: { value: i % 3 === 0 },
      f_due: { value: i % 11 === 0 ? 'someday' : `2025-0${1 + (i % 9)}-1${i % 10}` },
      f_stage: { value: i % 2 ? 'new' : 'won' },
      f_tags: { value: i % 4 ? ['vip'] : ['vip', 'smb'] },
      f_address: { value: { city: `City ${i}`, zip: 10_000 + i } },
      f_enrich:
        i % 3 === 1 ? { status: 'failed', errorMessage: `no domain ${i}` } : { status: 'success', value: { domain: `d${i}.example` } },
      ...(i % 5 === 0 ? { f_notes: { value: null, valuePreview: 'n'.repeat(200), isTruncated: true } } : {}),
      f_created: { value: created(i) },
    },
  };
}

export const table: Row[] = Array.from({ length: 23 }, (_, i) => typedRow(i));

export function parquetRequest(output: string, overrides: Partial<ExportRequest> = {}): ExportRequest {
  return request({ fields, format: 'parquet', output, table: { ...request().table, rowCount: table.length }, ...overrides });
}

export const tableService = (options: { fail?: (call: number) => Error | undefined; delay?: (call: number) => number } = {}): Service => {
  const inner = service(() => table);
  let calls = 0;
  return {
    calls: inner.calls,
    fetchPage: async (cursor, limit) => {
      calls += 1;
      const wait = options.delay?.(calls) ?? 0;
      if (wait > 0) await sleep(wait);
      const failure = options.fail?.(calls);
      if (failure) throw failure;
      return inner.fetchPage(cursor, limit);
    },
  };
};

export const gaveUp = (): TdsError => new TdsError('GAVE_UP', 'read rows: gave up after 3 attempts (HTTP 500)', { status: 500 });

export async function wholeExport(overrides: Partial<ExportRequest> = {}): Promise<string> {
  const path = await tempFile('whole.parquet');
  await runExport(context().ctx, tableService().fetchPage, parquetRequest(path, overrides));
  return path;
}

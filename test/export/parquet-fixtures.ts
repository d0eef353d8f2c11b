import { setTimeout as sleep } from 'node:timers/promises';
import { TdsError } from '../../src/core/errors.js';
import type { ExportRequest } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import type { Field, Row } from '../../src/service/index.js';
import { STAGE_FIELD, TAGS_FIELD } from '../helpers/field-specs.js';
import { field } from '../helpers/schemas.js';
import { context, request, service, tempFile, type Service } from './export-fixtures.js';

// A table of every kind of column served in pages, for the Parquet export tests (parquet-export and
// parquet-resume): its rows, the request, a service that fails or pauses on a given call.

const fields: Field[] = [
  field('f_name', 'name', 'Name', 'text'),
  field('f_amount', 'amount', 'Amount', 'number'),
  field('f_active', 'active', 'Active', 'boolean'),
  field('f_due', 'due', 'Due', 'date'),
  field('f_stage', 'stage', 'Stage', { type: 'select', options: STAGE_FIELD.options }),
  field('f_tags', 'tags', 'Tags', { type: 'multi_select', options: TAGS_FIELD.options }),
  field('f_address', 'address', 'Address', 'object'),
  field('f_enrich', 'enrich', 'Enrich', 'action'),
  field('f_notes', 'notes', 'Notes', 'text'),
  field('f_created', 'created_at', 'Created At', { type: 'date', isSystem: true }),
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

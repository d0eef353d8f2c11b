import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { readExportFlags, type ExportFlagValues } from '../../src/export/export-flags.js';
import { parquetColumns } from '../../src/export/parquet-columns.js';
import type { ShapeOptions } from '../../src/records/shape-options.js';
import type { Field } from '../../src/service/index.js';

// Which flags a Parquet export takes, and which columns its shaping flags give it.

const defaults: ExportFlagValues = { pageSize: 100, header: 'label', meta: true, system: true, cells: 'value', onTruncated: 'warn' };
const read = (values: Partial<ExportFlagValues>) =>
  readExportFlags({ ...defaults, ...values }, undefined, { command: 'rows', table: 'Edge Cases' });

describe('readExportFlags: parquet', () => {
  it.each([
    [{ output: 'leads.parquet' }, 'parquet'],
    [{ output: 'LEADS.PARQUET' }, 'parquet'],
    [{ output: 'leads.bin', format: 'parquet' as const }, 'parquet'],
    [{ output: 'leads.parquet', format: 'csv' as const }, 'csv'],
  ])('%j → %s', (values, format) => {
    expect(read(values).format).toBe(format);
  });

  it('accepts the shaping flags, and --status-columns (action columns have status and error columns anyway)', () => {
    const flags = read({
      output: 'x.parquet',
      header: 'name',
      columns: 'Name,Stage',
      meta: false,
      system: false,
      statusColumns: true,
      limit: 5,
    });
    expect(flags.shape).toEqual({
      header: 'name',
      meta: false,
      system: false,
      columns: ['Name', 'Stage'],
      cells: 'value',
      statusColumns: true,
    });
  });

  it('without -o is a usage error whose hint is the command with -o FILE.parquet', () => {
    for (const values of [{ format: 'parquet' as const }, { format: 'parquet' as const, output: '-' }]) {
      expect(() => read(values)).toThrow(UsageError);
      expect(() => read(values)).toThrow('parquet needs -o FILE: it is a binary format, never written to a terminal or a pipe');
      expect(() => read(values)).toThrow(expect.objectContaining({ hint: "e.g. tds rows 'Edge Cases' -o edge-cases.parquet" }));
    }
    expect(() => readExportFlags({ ...defaults, format: 'parquet' }, undefined, { command: 'query', table: 'Leads' })).toThrow(
      expect.objectContaining({ hint: 'e.g. tds query Leads -o leads.parquet' }),
    );
  });

  it.each([
    [
      { output: 'x.parquet', follow: true },
      /--follow writes rows as they appear, which a Parquet file \(written whole at the end\) cannot do/,
    ],
    [{ format: 'parquet' as const, follow: true }, /--follow writes rows as they appear/],
    [{ output: 'x.parquet', cells: 'raw' as const }, /--cells raw cannot be written as parquet/],
    [{ output: 'x.parquet', join: ';' }, /--join applies to csv and tsv output, not parquet/],
    [{ output: 'x.parquet', bom: true }, /--bom applies to csv and tsv output, not parquet/],
    [{ output: 'x.parquet', excel: true }, /--excel applies to csv and tsv output, not parquet/],
    [{ output: 'x.parquet', safeFormulas: true }, /--safe-formulas applies to csv and tsv output, not parquet/],
  ])('%j is a usage error', (values, message) => {
    expect(() => read(values)).toThrow(UsageError);
    expect(() => read(values)).toThrow(message);
  });

  it('an unknown extension names .parquet among the ones it knows', () => {
    expect(() => read({ output: 'x.xlsx' })).toThrow(
      expect.objectContaining({ hint: 'use an extension of .csv .tsv .tab .ndjson .jsonl .json .parquet, or give --format' }),
    );
  });
});

const field = (id: string, label: string, type: Field['type'], isSystem = false): Field => ({
  id,
  name: id,
  label,
  type,
  options: null,
  isSystem,
});
const fields: Field[] = [
  field('f1', 'Name', 'text'),
  field('f2', 'Enrich', 'action'),
  field('f3', '_truncated', 'number'),
  field('f4', 'Name', 'date'),
  field('f5', 'Created At', 'date', true),
];
const shape = (options: Partial<ShapeOptions> = {}): ShapeOptions => ({
  header: 'label',
  meta: true,
  system: true,
  cells: 'value',
  statusColumns: false,
  ...options,
});
const layout = (options: Partial<ShapeOptions>): string[] =>
  parquetColumns(fields, shape(options)).map((column) => `${column.key}:${column.type}`);

describe('parquetColumns', () => {
  it("is the mirror's typed plan: meta keys, one column per field (status and error after an action), _truncated last", () => {
    expect(layout({})).toEqual([
      '_id:VARCHAR',
      '_createdAt:TIMESTAMPTZ',
      '_updatedAt:TIMESTAMPTZ',
      '_createdByUserId:VARCHAR',
      'Name:VARCHAR',
      'Enrich:JSON',
      'Enrich.status:VARCHAR',
      'Enrich.error:VARCHAR',
      '_truncated (2):DOUBLE',
      'Name (2):TIMESTAMPTZ',
      'Created At:TIMESTAMPTZ',
      '_truncated:VARCHAR[]',
    ]);
  });

  it('--no-meta and --no-system leave out those columns; --header picks the keys', () => {
    expect(layout({ meta: false, system: false })).toEqual([
      'Name:VARCHAR',
      'Enrich:JSON',
      'Enrich.status:VARCHAR',
      'Enrich.error:VARCHAR',
      '_truncated (2):DOUBLE',
      'Name (2):TIMESTAMPTZ',
      '_truncated:VARCHAR[]',
    ]);
    expect(layout({ header: 'id', meta: false })).toEqual([
      'f1:VARCHAR',
      'f2:JSON',
      'f2.status:VARCHAR',
      'f2.error:VARCHAR',
      'f3:DOUBLE',
      'f4:TIMESTAMPTZ',
      'f5:TIMESTAMPTZ',
      '_truncated:VARCHAR[]',
    ]);
  });

  it('--columns picks and orders the fields by key, ID, label or name; an action column brings its status and error', () => {
    expect(layout({ meta: false, columns: ['Name (2)', 'f2', '_truncated (2)'] })).toEqual([
      'Name (2):TIMESTAMPTZ',
      'Enrich:JSON',
      'Enrich.status:VARCHAR',
      'Enrich.error:VARCHAR',
      '_truncated (2):DOUBLE',
      '_truncated:VARCHAR[]',
    ]);
    expect(() => parquetColumns(fields, shape({ columns: ['Nope'] }))).toThrow(/--columns: no column "Nope"/);
  });
});

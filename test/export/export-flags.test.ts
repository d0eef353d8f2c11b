import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseColumnList, readExportFlags, type ExportFlagValues } from '../../src/export/export-flags.js';

const defaults: ExportFlagValues = { pageSize: 100, header: 'label', meta: true, system: true, cells: 'value', onTruncated: 'warn' };
const read = (values: Partial<ExportFlagValues>, defaultFormat?: 'table' | 'csv' | 'ndjson') =>
  readExportFlags({ ...defaults, ...values }, defaultFormat);

describe('readExportFlags', () => {
  it.each([
    [{}, undefined, 'csv'],
    [{}, 'table' as const, 'csv'],
    [{}, 'ndjson' as const, 'ndjson'],
    [{ output: 'out.jsonl' }, undefined, 'ndjson'],
    [{ output: 'out.tsv', format: 'json' as const }, undefined, 'json'],
    [{ output: '-' }, 'ndjson' as const, 'ndjson'],
  ])('%j with default format %s → %s', (values, defaultFormat, format) => {
    expect(read(values, defaultFormat).format).toBe(format);
  });

  it('--excel means BOM, CRLF, the formula guard, the spreadsheet cell limit and cells as a person reads them', () => {
    expect(read({ excel: true }).csv).toEqual({ bom: true, crlf: true, safeFormulas: true, maxCellChars: 32_767, spreadsheet: true });
    expect(read({ excel: 'eu' }).csv).toMatchObject({ delimiter: ';', decimalComma: true, spreadsheet: true });
    expect(read({ excel: 'eu', format: 'tsv' }).csv).not.toHaveProperty('delimiter');
    expect(read({ delimiter: '|' }).csv).toMatchObject({ delimiter: '|' });
    expect(read({ bom: true, join: '; ' }).csv).toEqual({ bom: true, crlf: false, safeFormulas: false, join: '; ' });
  });

  it.each([
    [{ format: 'table' as const, output: 'x.csv' }, /not for -o FILE/],
    [{ format: 'ndjson' as const, excel: true }, /--excel applies to csv and tsv/],
    [{ output: 'x.json', join: ',' }, /--join applies to csv and tsv/],
    [{ format: 'json' as const, safeFormulas: true }, /--safe-formulas applies/],
    [{ search: 'x'.repeat(101) }, /101 characters long; the service accepts at most 100/],
    [{ resume: true, restart: true, output: 'a.csv' }, /cannot be used together/],
    [{ resume: true }, /--resume needs -o FILE/],
    [{ restart: true, output: '-' }, /--restart needs -o FILE/],
    [{ output: 'out.xlsx' }, /cannot tell the format/],
  ])('%j is a usage error', (values, message) => {
    expect(() => read(values)).toThrow(UsageError);
    expect(() => read(values)).toThrow(message);
  });
});

describe('parseColumnList', () => {
  it.each([
    ['Name,Email', ['Name', 'Email']],
    [' Name , Email (2) ', ['Name', 'Email (2)']],
    ['"Smith, John",Stage', ['Smith, John', 'Stage']],
    ['Name,,Stage', ['Name', 'Stage']],
  ])('%j → %j', (text, refs) => expect(parseColumnList(text)).toEqual(refs));

  it.each(['', ',', '"unclosed', 'a\nb'])('%j is a usage error', (text) => {
    expect(() => parseColumnList(text)).toThrow(UsageError);
  });
});

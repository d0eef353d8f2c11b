import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isRowsPage } from '../../src/http/client.js';
import { rowsPageSchema } from '../../src/http/schemas.js';

const row = {
  id: 'row_a-b',
  tableId: 'tbl_1',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  createdByUserId: null,
  cells: { f1: { value: 'x' }, f2: { valuePreview: 'cut', isTruncated: true }, f3: { status: 'failed', errorMessage: { code: 1 } } },
};
const page = { rows: [row], limit: 100, nextCursor: 'c', hasNextPage: true };

// Values near a valid page: each member replaced by something arbitrary now and then.
const nearly = <T extends Record<string, unknown>>(base: T, members: { [K in keyof T]?: fc.Arbitrary<unknown> }) =>
  fc.record(
    Object.fromEntries(
      Object.keys(base).map((key) => [key, fc.oneof({ weight: 4, arbitrary: fc.constant(base[key]) }, members[key] ?? fc.anything())]),
    ),
  );

const cell = fc.oneof(
  fc.constant({ value: 1 }),
  fc.record({ value: fc.anything(), status: fc.anything(), isTruncated: fc.anything(), valuePreview: fc.anything() }, { requiredKeys: [] }),
  fc.anything(),
);
const rowArb = nearly(row, { cells: fc.oneof(fc.dictionary(fc.string(), cell), fc.anything()) });
const pageArb = nearly(page, { rows: fc.oneof(fc.array(rowArb, { maxLength: 3 }), fc.anything()) });

describe('isRowsPage', () => {
  it('accepts a well-formed page, cells without value included', () => {
    expect(isRowsPage(page)).toBe(true);
    expect(isRowsPage({ ...page, rows: [], nextCursor: null, hasNextPage: false })).toBe(true);
  });

  it.each([
    ['a missing cursor', { ...page, nextCursor: undefined }],
    ['a fractional limit', { ...page, limit: 1.5 }],
    ['rows that are not an array', { ...page, rows: {} }],
    ['a row without id', { ...page, rows: [{ ...row, id: undefined }] }],
    ['cells that are an array', { ...page, rows: [{ ...row, cells: [] }] }],
    ['a cell that is a string', { ...page, rows: [{ ...row, cells: { f: 'x' } }] }],
    ['a numeric status', { ...page, rows: [{ ...row, cells: { f: { status: 3 } } }] }],
  ])('leaves %s to zod', (_name, value) => {
    expect(isRowsPage(value)).toBe(false);
  });

  it('never accepts what the zod schema refuses (property)', () => {
    fc.assert(
      fc.property(pageArb, (value) => {
        if (isRowsPage(value)) expect(rowsPageSchema.safeParse(value).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

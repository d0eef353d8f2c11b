import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { RowsPage } from '../../../src/service/index.js';
import { GeneratedRows } from '../../../src/emulator/store/generated-rows.js';
import { FilterOracle } from '../read/filter-oracle.js';
import { allRows, get, post, tableInfo, type TableInfo, emulatorOptions, starter } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// `rows: N`: workspace "Bench", table "Generated", rows computed on demand.

describe('generated table', () => {
  let emu: RunningEmulator;
  let harness: TableInfo;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ rows: 2_500 }))).emu;
    harness = await tableInfo(emu, 'Generated', 'Bench');
  });

  it('has the columns and size asked for', () => {
    expect(harness.table.rowCount).toBe(2_500);
    expect(harness.fields.map((field) => [field.label, field.type])).toEqual([
      ['Name', 'text'],
      ['Email', 'email'],
      ['Amount', 'number'],
      ['Active', 'boolean'],
      ['Signed Up', 'date'],
      ['Plan', 'select'],
      ['Notes', 'text'],
    ]);
  });

  it('pages every row once, newest first; filtered pages in id order', async () => {
    const rows = await allRows(emu, harness.table.id);
    expect(rows).toHaveLength(2_500);
    expect(new Set(rows.map((row) => row.id)).size).toBe(2_500);
    for (let i = 1; i < rows.length; i += 1) expect(rows[i - 1]!.createdAt > rows[i]!.createdAt).toBe(true);
    const ids = rows.map((row) => row.id);
    expect(ids).not.toEqual([...ids].sort());
    expect(ids.some((id) => /[-_]/.test(id))).toBe(true);
    expect(rows.some((row) => row.cells[harness.id.notes!]?.isTruncated)).toBe(true);

    const oracle = await FilterOracle.of(emu, 'Generated', 'Bench');
    await oracle.expectRule('plan', 'in', ['Pro', 'enterprise'], (row) =>
      ['pro', 'enterprise'].includes(oracle.value(row, 'plan') as string),
    );
    await oracle.expectRule('amount', '>', 9_000, (row) => (oracle.value(row, 'amount') as number) > 9_000);
    const everything = await allRows(
      emu,
      harness.table.id,
      { filters: { rules: [{ fieldId: harness.id.name, operator: 'notNull' }] } },
      100,
    );
    expect(everything.map((row) => row.id)).toEqual([...ids].sort());
  });
});

/** Counts the cells GeneratedRows computes, by column, while `work` runs. */
async function cellsComputedBy(work: () => Promise<void>): Promise<Record<string, number>> {
  const proto = GeneratedRows.prototype as unknown as { cell(key: string, index: number): unknown };
  const original = proto.cell;
  const counts: Record<string, number> = {};
  proto.cell = function (this: unknown, key: string, index: number) {
    counts[key] = (counts[key] ?? 0) + 1;
    return original.call(this, key, index);
  };
  try {
    await work();
  } finally {
    proto.cell = original;
  }
  return counts;
}

describe('a table of 1,000,000 rows (the size is the point: rows and cells computed only when read)', () => {
  it('starts without computing a cell, and serves plain and filtered pages', async ({ open }) => {
    let emu: RunningEmulator | undefined;
    const start = starter(open);
    expect(await cellsComputedBy(async () => void (emu = await start({ rows: 1_000_000 })))).toEqual({});
    try {
      const harness = await tableInfo(emu!, 'Generated', 'Bench');
      expect(harness.table.rowCount).toBe(1_000_000);
      const first = (await get<RowsPage>(emu!, `/tables/${harness.table.id}/rows`)).body;
      const second = (await get<RowsPage>(emu!, `/tables/${harness.table.id}/rows?cursor=${encodeURIComponent(first.nextCursor!)}`)).body;
      expect(second.rows[0]!.createdAt < first.rows[99]!.createdAt).toBe(true);
      const query = { filters: { rules: [{ fieldId: harness.id.active, operator: '=', value: true }] }, limit: 100 };
      const page = (await post<RowsPage>(emu!, `/tables/${harness.table.id}/rows/query`, query)).body;
      expect(page.rows).toHaveLength(100);
      const next = (await post<RowsPage>(emu!, `/tables/${harness.table.id}/rows/query`, { ...query, cursor: page.nextCursor })).body;
      expect(next.rows[0]!.id > page.rows[99]!.id).toBe(true);

      // A filter that matches no row scans all 1,000,000 rows, computing only its own column (it took 5 s when
      // every cell of every scanned row was computed).
      const none = { filters: { rules: [{ fieldId: harness.id.amount, operator: '>', value: 1e9 }] } };
      const scanned = await cellsComputedBy(async () => {
        expect((await post<RowsPage>(emu!, `/tables/${harness.table.id}/rows/query`, none)).body).toEqual({
          rows: [],
          limit: 100,
          nextCursor: null,
          hasNextPage: false,
        });
      });
      expect(scanned).toEqual({ amount: 1_000_000 });
    } finally {
      await emu?.close();
    }
  });
});

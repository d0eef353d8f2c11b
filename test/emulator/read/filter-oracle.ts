import { expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Cell, Row } from '../../../src/service/index.js';
import { allRows, queryRows, tableInfo, type TableInfo } from '../helpers.js';

/**
 * Checks a filter against a plain oracle over every row of the table: the rows the emulator returns must be
 * exactly those the predicate picks, in id order, and the predicate must pick some rows but not all.
 */
export class FilterOracle {
  private constructor(
    private readonly emu: RunningEmulator,
    readonly info: TableInfo,
    readonly rows: Row[],
  ) {}

  static async of(emu: RunningEmulator, table: string, workspace?: string): Promise<FilterOracle> {
    const info = await tableInfo(emu, table, workspace);
    return new FilterOracle(emu, info, await allRows(emu, info.table.id));
  }

  cell(row: Row, name: string): Cell | undefined {
    return row.cells[this.info.id[name]!];
  }

  value(row: Row, name: string): unknown {
    return this.cell(row, name)?.value;
  }

  rule(name: string, operator: string, value?: unknown) {
    return { fieldId: this.info.id[name]!, operator, ...(value === undefined ? {} : { value }) };
  }

  async expectRule(name: string, operator: string, value: unknown, pick: (row: Row) => boolean): Promise<void> {
    await this.expectFilter({ rules: [this.rule(name, operator, value)] }, pick);
  }

  async expectFilter(filters: unknown, pick: (row: Row) => boolean, extra: Record<string, unknown> = {}): Promise<void> {
    const got = await queryRows(this.emu, this.info.table.id, filters, extra);
    const ids = got.map((row) => row.id);
    expect(ids).toEqual([...ids].sort());
    const expected = this.rows
      .filter(pick)
      .map((row) => row.id)
      .sort();
    expect(expected.length, 'the oracle picks some rows').toBeGreaterThan(0);
    expect(expected.length, 'the oracle leaves some rows out').toBeLessThan(this.rows.length);
    expect(ids).toEqual(expected);
  }
}

export const lower = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? '')).toLowerCase();

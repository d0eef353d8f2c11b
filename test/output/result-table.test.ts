import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { firstRows, resultCellText } from '../../src/output/result-table.js';
import { tableFit } from '../../src/output/table.js';
import { memoryContext } from '../helpers/context.js';

async function* numbers(count: number): AsyncGenerator<number> {
  for (let i = 0; i < count; i += 1) yield i;
}

describe('firstRows', () => {
  it.each([
    [0, 3, [], 0],
    [2, 3, [0, 1], 0],
    [3, 3, [0, 1, 2], 0],
    [5, 3, [0, 1, 2], 2],
  ])('%i records, a bound of %i: keeps %j and counts %i more', async (count, bound, kept, more) => {
    expect(await firstRows(numbers(count), bound)).toEqual({ rows: kept, more });
  });
});

describe('resultCellText', () => {
  it.each([
    [null, null],
    ['text "as is"', 'text "as is"'],
    [42, '42'],
    [true, 'true'],
    [{ a: [1, 'b'] }, '{"a":[1,"b"]}'],
  ])('%j → %j', (value, text) => expect(resultCellText(value)).toBe(text));
});

describe('tableFit', () => {
  const color = new Chalk({ level: 1 });
  const io = (overrides: { stdoutIsTTY?: boolean; columns?: string; colorEnabled?: boolean }) => ({
    ...memoryContext({ stdoutIsTTY: overrides.stdoutIsTTY ?? false, terminalWidth: 80 }).ctx.io,
    env: overrides.columns ? { COLUMNS: overrides.columns } : {},
    colorEnabled: overrides.colorEnabled ?? false,
    color,
  });

  it('a terminal: its width, and colour when colour is on', () => {
    expect(tableFit(io({ stdoutIsTTY: true, colorEnabled: true }), false)).toEqual({ width: 80, color });
  });
  it('a pipe: whole cells and no colour, even when stderr is a terminal that takes colour', () => {
    expect(tableFit(io({ colorEnabled: true }), false)).toEqual({ width: Infinity });
  });
  it('a pipe given COLUMNS: fitted to it, still without colour', () => {
    expect(tableFit(io({ columns: '80', colorEnabled: true }), false)).toEqual({ width: 80 });
  });
  it('a file (-o) from a terminal: whole cells, no colour', () => {
    expect(tableFit(io({ stdoutIsTTY: true, colorEnabled: true }), true)).toEqual({ width: Infinity });
  });
});

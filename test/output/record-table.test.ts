import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import {
  columnsThatFit,
  recordCellText,
  renderRecordTable,
  type RecordColumn,
  firstRows,
  resultCellText,
} from '../../src/output/record-table.js';
import { displayWidth, tableFit } from '../../src/output/table.js';
import { memoryContext } from '../helpers/context.js';

// `--format table` of rows and query (issue 16): records as an aligned table, fitted to a width.

const records = [
  {
    _id: 'row_AAAAAAAAAAAAAAAA',
    Name: 'Ada Lovelace, Countess of Lovelace',
    Employees: 1200,
    Tags: ['VIP', 'Partner'],
    Address: { city: 'Zürich' },
    Note: null,
  },
  { _id: 'row_BBBBBBBBBBBBBBBB', Name: '🚀 Rocket Co', Employees: 7, Tags: [], Address: null, Note: 'a\nb\tc\u001b[31m' },
];
const columns: RecordColumn[] = [
  { key: '_id', dim: true, shrink: false },
  { key: 'Name' },
  { key: 'Employees', align: 'right' },
  { key: 'Tags' },
  { key: 'Address' },
  { key: 'Note' },
];
const lines = (text: string): string[] => text.split('\n');

describe('recordCellText', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    ['plain', 'plain'],
    ['two\nlines\tand\rtab', 'two lines and tab'],
    ['bell\u0007 and escape\u001b', 'bell\uFFFD and escape\uFFFD'],
    [1234.5678, '1234.5678'],
    [false, 'false'],
    [['VIP', 'Partner'], 'VIP, Partner'],
    [[1, null, true], '1, , true'],
    [[{ a: 1 }], '[{"a":1}]'],
    [{ city: 'Zürich' }, '{"city":"Zürich"}'],
  ])('%j → %j', (value, text) => expect(recordCellText(value)).toBe(text));
});

describe('renderRecordTable', () => {
  it('piped (no width): every column with whole cells, numbers right-aligned, arrays joined, no colour', () => {
    const { text, hidden } = renderRecordTable(records, columns, { width: Infinity });
    expect(hidden).toEqual([]);
    const [header, first, second] = lines(text);
    expect(header).toMatch(/^_id\s+Name\s+Employees\s+Tags\s+Address\s+Note$/);
    expect(first).toContain('row_AAAAAAAAAAAAAAAA  Ada Lovelace');
    expect(first).toContain('VIP, Partner');
    expect(first).toContain('{"city":"Zürich"}');
    expect(second).toContain('a b c\uFFFD[31m');
    // Employees ends where its header ends, in every row.
    const end = header!.indexOf('Employees') + 'Employees'.length;
    expect(first!.slice(end - 4, end)).toBe('1200');
    expect(second!.slice(end - 1, end)).toBe('7');
    expect(text).not.toMatch(/\u001b\[/);
    expect(text).not.toContain('…');
  });

  it('emoji are measured as two columns wide, so the columns after them stay aligned', () => {
    const { text } = renderRecordTable(records, columns.slice(0, 3), { width: Infinity });
    const [header, first, second] = lines(text);
    const at = (line: string, key: string): number => displayWidth(line.slice(0, line.indexOf(key)));
    expect(at(first!, '1200') + 4).toBe(at(second!, '7') + 1);
    expect(displayWidth(second!)).toBe(displayWidth(header!));
  });

  it('fitted to a width: long cells cut with …, row IDs never cut, and the columns that cannot fit left out and named', () => {
    const { text, hidden } = renderRecordTable(records, columns, { width: 50 });
    expect(hidden).toEqual(['Tags', 'Address', 'Note']);
    for (const line of lines(text)) expect(displayWidth(line)).toBeLessThanOrEqual(50);
    expect(lines(text)[0]).toMatch(/^_id\s+Name\s+Employees$/);
    expect(text).toMatch(/^row_A{16} {2}Ada Lovelace, Co… +1200$/m);
    expect(text).toContain('row_BBBBBBBBBBBBBBBB');
  });

  it('at least one column, however narrow', () => {
    const { text, hidden } = renderRecordTable(records, columns, { width: 5 });
    expect(hidden).toHaveLength(columns.length - 1);
    expect(lines(text)[0]).toBe('_id');
  });

  it('colour only when given: bold header, dimmed IDs', () => {
    const { text } = renderRecordTable(records, columns, { width: Infinity, color: new Chalk({ level: 1 }) });
    expect(text).toContain('\u001b[1m_id\u001b[22m');
    expect(text).toContain('\u001b[2mrow_AAAAAAAAAAAAAAAA\u001b[22m');
  });
});

describe('columnsThatFit', () => {
  it.each([
    [[10, 10, 10], 34, 3],
    [[10, 10, 10], 33, 2],
    [[10, 10, 10], 22, 2],
    [[10, 10, 10], 21, 1],
    [[40, 10], 10, 1],
    [[], 10, 0],
  ])('%j in %d → %d', (least, width, count) => expect(columnsThatFit(least, width)).toHaveLength(count));

  it('leaves out the columns asked for by name last', () => {
    expect(columnsThatFit([10, 10, 10, 10], 22, [false, false, false, true])).toEqual([0, 3]);
    expect(columnsThatFit([10, 10, 10, 10], 22, [true, false, true, true])).toEqual([0, 2]);
    expect(columnsThatFit([10, 10, 10], 10, [true, true, true])).toEqual([0]);
  });
});

describe('recordCellText: members by name', () => {
  it.each([
    [{ id: 'usr_1', name: 'Ada Lovelace', email: 'ada@x.example' }, 'Ada Lovelace'],
    [
      [
        { id: 'usr_1', name: 'Ada' },
        { id: 'usr_2', name: 'Grace' },
      ],
      'Ada, Grace',
    ],
    [12n, '12'],
    [{ city: 'Zürich', n: 3n }, '{"city":"Zürich","n":"3"}'],
  ])('%# → %s', (value, text) => expect(recordCellText(value)).toBe(text));
});

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

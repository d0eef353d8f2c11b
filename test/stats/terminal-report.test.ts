import { stripVTControlCharacters } from 'node:util';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/output/table.js';
import type { ColumnStats, TableStats } from '../../src/stats/stats-report.js';
import { STATE_COLOR } from '../../src/stats/html-report.js';
import { renderTerminalReport } from '../../src/stats/terminal-report.js';
import { NEVER_SYNCED } from '../helpers/never-synced.js';

// The terminal sections from a stats object made here: many causes, a long hostile key, narrow widths.

const causes = Array.from({ length: 20 }, (_, i) => ({
  cause: `Cause number ${String.fromCharCode(65 + i)} happened`,
  count: 40 - i,
  example: `Cause number ${String.fromCharCode(65 + i)} happened\u001b[31m (row ${i})`,
  ids: [`row_${i}`],
}));
const action: ColumnStats = {
  key: 'A very long action column key that will not fit\u0007',
  label: 'x',
  type: 'action',
  filled: 10,
  fill: 0.5,
  distinct: 2,
  top: [],
  min: null,
  max: null,
  mean: null,
  truncated: 0,
  states: { success: 10, failed: 610, skipped: 0, stopped: 0, queued: 0, waiting: 0, running: 3, manual: 0, none: 1 },
  errors: causes,
  causes: 31,
};
const stats: TableStats = {
  table: {
    id: 'tbl_1',
    name: 'Big\u001b[2J table',
    workspace: 'W',
    mirrorTable: 'big',
    rows: 624,
    columns: 1,
    firstCreatedAt: '2025-01-01T00:00:00.000Z',
    lastCreatedAt: '2025-01-02T00:00:00.000Z',
    perDay: [
      { day: '2025-01-01', rows: 600 },
      { day: '2025-01-02', rows: 24 },
    ],
    ...NEVER_SYNCED,
  },
  columns: [action],
};

describe('renderTerminalReport', () => {
  it.each([60, 80, 120])('fits %d columns, and prints no control character from the data', (width) => {
    const text = renderTerminalReport(stats, { width });
    for (const line of text.trimEnd().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('shows the 5 most frequent causes, and says how many more there are and that JSON lists 20 of them', () => {
    const text = renderTerminalReport(stats, { width: 120 });
    expect(text).toContain('Failure causes: A very long action column key that will not fit\uFFFD (31 causes)');
    expect(text).toMatch(/^ {2}40 {2}Cause number A happened$/m);
    expect(text).toMatch(/^ {2}36 {2}Cause number E happened$/m);
    expect(text).not.toContain('Cause number F happened\n');
    const rest = causes.slice(5).reduce((sum, cause) => sum + cause.count, 0);
    expect(text).toContain(`… 26 more causes (${rest}+ cells): --format json lists the first 20`);
    expect(text).toMatch(/█ success 10 {2}▓ failed 610 {2}= running 3 {2}· none 1/);
  });

  it('rows per day: the dates on both sides of the sparkline, one date once when there is one day', () => {
    expect(renderTerminalReport(stats, { width: 120 })).toContain('  2025-01-01 █▁ 2025-01-02  peak 600 on 2025-01-01');
    const oneDay = { ...stats, table: { ...stats.table, perDay: [{ day: '2026-12-07', rows: 2 }] } };
    const text = renderTerminalReport(oneDay, { width: 120 });
    expect(text).toContain('  2026-12-07 █  peak 2 on 2026-12-07');
    expect(text).not.toContain('█ 2026-12-07');
  });

  it('colours with the colour it is given, and only then', () => {
    expect(renderTerminalReport(stats, { width: 100 })).not.toMatch(/\u001b\[/);
    expect(renderTerminalReport(stats, { width: 100, color: new Chalk({ level: 1 }) })).toMatch(/\u001b\[\d+m▓+\u001b\[39m/);
  });

  it('gives every run state a character of its own, with colour or without (skipped ≠ stopped, queued ≠ waiting)', () => {
    for (const color of [undefined, new Chalk({ level: 3 })]) {
      const text = stripVTControlCharacters(renderTerminalReport(stats, { width: 200, ...(color ? { color } : {}) }));
      const legend = [...text.matchAll(/(\S) (success|failed|skipped|stopped|queued|waiting|running|manual|none) \d/g)].map((m) => m[1]);
      expect(new Set(legend).size).toBe(legend.length);
    }
    expect(new Set(Object.values(STATE_COLOR)).size).toBe(Object.keys(STATE_COLOR).length);
  });
});

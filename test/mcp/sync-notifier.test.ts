import { describe, expect, it } from 'vitest';
import { syncNotifier } from '../../src/mcp/tools/sync-tables.js';
import type { ProgressUpdate } from '../../src/mcp/tool.js';
import type { Table } from '../../src/service/index.js';

// A sync's progress as MCP notifications: rows read in all, only ever growing, the table named.

const table = (name: string, rowCount: number): Table =>
  ({ id: `tbl_${name}`, name, workspaceId: 'ws', workspaceName: 'W', rowCount, fieldCount: 1, emoji: null }) as unknown as Table;

describe('syncNotifier', () => {
  it('counts the rows of every table, never goes back, and names the table', () => {
    const sent: ProgressUpdate[] = [];
    const tables = [table('Leads', 250), table('Empty', 0), table('Signups', 10)];
    const progress = syncNotifier(
      tables,
      (update) => sent.push(update),
      () => undefined,
    );
    progress.table(tables[0]!);
    progress.page(100);
    progress.page(250);
    progress.table(tables[1]!);
    progress.table(tables[2]!);
    progress.page(10);
    progress.stop();
    const values = sent.map((update) => update.progress);
    expect(values[0]).toBe(100);
    expect(values.at(-1)).toBe(260);
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(sent.at(-1)?.message).toBe('table 3 of 3, Signups: 10 rows read');
  });

  it('sends nothing when no row was read', () => {
    const sent: ProgressUpdate[] = [];
    const progress = syncNotifier(
      [table('Empty', 0)],
      (update) => sent.push(update),
      () => undefined,
    );
    progress.table(table('Empty', 0));
    progress.page(0);
    progress.stop();
    expect(sent).toEqual([]);
  });

  it('passes notes on', () => {
    const notes: string[] = [];
    syncNotifier(
      [],
      () => undefined,
      (text) => notes.push(text),
    ).note('leads: column Stage added');
    expect(notes).toEqual(['leads: column Stage added']);
  });
});

import { describe, expect, vi } from 'vitest';
import { createPrng } from '../../src/emulator/seed/prng.js';
import { exportRows } from '../mirror/helpers.js';
import { diffRecords, expectedDiff, sqlRows, type Row } from './diff-support.js';
import { ago, rowReadsSince } from './sync-support.js';
import { addRows, makeTable, NAME_AND_NUMBER } from '../helpers/admin-tables.js';
import { test as it } from '../helpers/emulator-fixture.js';

// SIGKILL and SIGINT at seeded random points of incremental and --full syncs, each followed by a sync
// that completes: every version of every row that a sync could see is in the mirror (the table or its
// history) exactly once, deletions once, and the table after each completed sync is what the service had.

const CYCLES = 4;
const ROWS = 600;

describe('tds sync: versions through kills', () => {
  it('SIGKILL and SIGINT anywhere in a sync: every version once, the table as the service had it after each completed sync', async ({
    open,
  }) => {
    const random = createPrng(2026);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const b = await open();
    const { id: tableId } = await makeTable(b, 'Churned', NAME_AND_NUMBER);
    const rowsPath = `/tables/${tableId}/rows`;
    const addRandomRows = async (count: number, msAgo: (i: number) => number): Promise<void> => {
      const names = Array.from({ length: count }, () => `row ${random().toString(36).slice(2, 8)}`);
      await addRows(
        b,
        tableId,
        names.map((Name, i) => ({ cells: { Name, N: i }, createdAt: ago(msAgo(i)) })),
      );
    };
    await addRandomRows(ROWS, (i) => (ROWS - i) * 3_600_000);

    /** Starts a sync and stops it with `signal` once the emulator has answered `after` of its row requests (if it has not ended by then). */
    const interrupted = async (args: string[], signal: 'SIGKILL' | 'SIGINT', after: number): Promise<void> => {
      const since = b.emu.requestLog.length;
      const sync = b.spawn(['sync', ...args]);
      let done = false;
      void sync.ended.then(() => (done = true));
      await vi.waitFor(() => expect(done || rowReadsSince(b, since) >= after).toBe(true), { timeout: 20_000, interval: 2 });
      if (!done) sync.child.kill(signal);
      const { code, signal: killed } = await sync.ended;
      const ending = `exit ${String(code)}, signal ${String(killed)}; stderr: ${sync.stderr()}`;
      if (signal === 'SIGINT') expect([0, 130], ending).toContain(code);
      else expect(code === 0 || killed === 'SIGKILL', ending).toBe(true);
    };
    /** The sync after, which continues the pass the interrupted one began (a --full killed at once included). */
    const completed = async (full: boolean): Promise<number> => {
      const result = await b.tds(['sync', tableId, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const [summary] = (JSON.parse(result.stdout) as { tables: Array<{ syncId: number; mode: string; complete: boolean }> }).tables;
      if (full) expect(summary!.mode).toBe('full');
      return summary!.syncId;
    };
    const versions = new Set<string>();
    const deletedIds = new Set<string>();
    const states: Array<{ syncId: number; rows: Map<string, Row> }> = [];
    const record = async (syncId: number): Promise<void> => {
      const rows = await exportRows(b, tableId);
      for (const row of rows) versions.add(`${String(row._id)} ${new Date(row._updatedAt as string).toISOString()}`);
      const view = new Map(
        rows.map((row) => [
          String(row._id),
          { _createdAt: row._createdAt, _updatedAt: new Date(row._updatedAt as string).toISOString() } as Row,
        ]),
      );
      for (const id of states.at(-1)?.rows.keys() ?? []) if (!view.has(id)) deletedIds.add(id);
      states.push({ syncId, rows: view });
    };

    // the first sync, killed too
    await interrupted([tableId], pick(['SIGKILL', 'SIGINT'] as const), 1 + Math.floor(random() * 6));
    await record(await completed(true));
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const full = cycle % 2 === 0;
      const current = [...states.at(-1)!.rows.keys()];
      // newest first, as the service lists them: an incremental sync sees edits of the newest page
      const newest = [...states.at(-1)!.rows.entries()]
        .sort(([, a], [, c]) => String(c._createdAt).localeCompare(String(a._createdAt)))
        .map(([id]) => id);
      const edited = full ? Array.from({ length: 8 }, () => pick(current)) : newest.slice(0, 40).filter(() => random() < 0.2);
      for (const id of new Set(edited)) await b.admin('PATCH', `${rowsPath}/${id}`, { cells: { N: Math.floor(random() * 1000) } });
      if (full) await b.admin('POST', `${rowsPath}/delete`, { ids: [pick(current), pick(current)] });
      await addRandomRows(3, (i) => 1_000 * (3 - i));
      await interrupted(full ? ['--full'] : [], pick(['SIGKILL', 'SIGINT'] as const), 1 + Math.floor(random() * 7));
      await record(await completed(full));
    }

    // every version once, in the table or its history; each deletion once
    const held = await sqlRows(
      b,
      `SELECT "_id", "_updatedAt", NULL AS "_change" FROM churned UNION ALL SELECT "_id", "_updatedAt", "_change" FROM churned__history`,
    );
    const heldKeys = held.map((row) => `${String(row._id)} ${String(row._updatedAt)}`);
    expect(heldKeys.filter((key, i) => heldKeys.indexOf(key) !== i)).toEqual([]);
    expect(new Set(heldKeys)).toEqual(versions);
    expect(
      held
        .filter((row) => row._change === 'deleted')
        .map((row) => row._id)
        .sort(),
    ).toEqual([...deletedIds].sort());

    // the table after each completed sync, and what each brought
    for (const [i, state] of states.entries()) {
      const rows = await sqlRows(b, `SELECT "_id", "_createdAt", "_updatedAt" FROM churned_at_sync(${state.syncId})`);
      expect(new Map(rows.map((row) => [String(row._id), { _createdAt: row._createdAt, _updatedAt: row._updatedAt }]))).toEqual(
        new Map(
          [...state.rows].map(([id, row]) => [
            id,
            { _createdAt: new Date(row._createdAt as string).toISOString(), _updatedAt: row._updatedAt },
          ]),
        ),
      );
      if (i === 0) continue;
      const diff = await diffRecords(b, ['churned', '--since', `sync:${states[i - 1]!.syncId}`, '--until', `sync:${state.syncId}`]);
      const expected = expectedDiff(states[i - 1]!.rows, state.rows);
      expect(diff.map((record) => `${record.change} ${record._id}`).sort()).toEqual(
        expected.map((record) => `${record.change} ${record._id}`).sort(),
      );
    }
  }, 240_000);
});

import { describe, expect, vi } from 'vitest';
import { ndjson, sqlRows, type DiffRecord } from './diff-support.js';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// `tds sync --changes`: the diff records of each table's sync on stdout; with --follow under churn, a
// stream in which each change comes once (replayed from an empty table, it gives the mirror table).

const openHarness = useOpenOfEachTest();

type ChangeRecord = DiffRecord & { table: string; tableId: string; syncId: number };

/** Applies the records in order to a map of row ID → `_updatedAt`, checking each against what it says was before. */
function replay(records: readonly ChangeRecord[]): Map<string, unknown> {
  const rows = new Map<string, unknown>();
  for (const record of records) {
    const where = `${record.change} ${record._id} (sync ${record.syncId})`;
    if (record.change === 'added') {
      expect(rows.has(record._id), where).toBe(false);
      rows.set(record._id, record.after!._updatedAt);
    } else if (record.change === 'deleted') {
      expect(rows.get(record._id), where).toBe(record.before!._updatedAt);
      rows.delete(record._id);
    } else {
      expect(rows.has(record._id), where).toBe(true);
      if ('_updatedAt' in record.before!) expect(rows.get(record._id), where).toBe(record.before!._updatedAt);
      if ('_updatedAt' in record.after!) rows.set(record._id, record.after!._updatedAt);
    }
  }
  return rows;
}

describe('tds sync --changes', () => {
  it("prints each table's changes on stdout as NDJSON with the table's name, the summary on stderr", async () => {
    const harness = await openHarness();
    const first = await harness.tds(['sync', 'Leads', 'Signups', '--changes']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/synced .*\n {2}leads +full/);
    const records = ndjson(first.stdout) as unknown as ChangeRecord[];
    const leads = await sqlRows(harness, 'SELECT "_id" FROM leads');
    const signups = await sqlRows(harness, 'SELECT "_id" FROM signups');
    expect(
      records
        .filter((record) => record.table === 'leads')
        .map((record) => record._id)
        .sort(),
    ).toEqual(leads.map((row) => row._id).sort());
    expect(records.filter((record) => record.table === 'signups')).toHaveLength(signups.length);
    expect(new Set(records.map((record) => record.change))).toEqual(new Set(['added']));
    expect(Object.keys(records[0]!)).toEqual(['table', 'tableId', 'syncId', 'change', '_id', 'before', 'after']);

    // nothing new: nothing printed
    const idle = await harness.tds(['sync', '--changes']);
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toBe('');

    const both = await harness.tds(['sync', '--changes', '--json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--changes and --json both write to stdout/);
    // 4 s alone; three syncs and two reads of the demo's tables took 30 s once beside the whole suite
  }, 90_000);

  it('--follow under churn: a stream in which each change comes once, whole records to the last after Ctrl-C', async () => {
    // a small table (the demo's Salaries, 15 rows): an incremental sync reads it whole, deletions included
    const b = await openHarness({ churn: 'add:6/s,update:12/s,delete:2/s,table=Salaries', faultSeed: 11 });
    // a process: its stdout shows the records as they come, and Ctrl-C ends it
    const follow = b.spawn(['sync', 'Salaries', '--follow', '--every', '0.2', '--changes']);
    const syncsSeen = (): number =>
      new Set(
        follow
          .stdout()
          .split('\n')
          .filter((line) => line.endsWith('}'))
          .map((line) => (JSON.parse(line) as ChangeRecord).syncId),
      ).size;
    try {
      await vi.waitFor(() => expect(syncsSeen()).toBeGreaterThanOrEqual(8), { timeout: 60_000, interval: 50 });
    } finally {
      follow.child.kill('SIGINT');
    }
    const code = await follow.exit;
    // Ctrl-C ends --follow: at once between rounds (0), or within a sync (130); either way its records are whole
    expect([0, 130], follow.stderr()).toContain(code);
    expect(follow.stdout().endsWith('\n')).toBe(true);
    const records = ndjson(follow.stdout()) as unknown as ChangeRecord[];
    expect(records.every((record) => record.table === 'salaries')).toBe(true);
    // every kind of change came, each once: replayed from an empty table they give the mirror table
    expect(new Set(records.map((record) => record.change))).toEqual(new Set(['added', 'updated', 'deleted']));
    const mirror = await sqlRows(b, 'SELECT "_id", "_updatedAt" FROM salaries');
    expect(replay(records)).toEqual(new Map(mirror.map((row) => [String(row._id), row._updatedAt])));
    // and each version the mirror took (in the table, or replaced or deleted in the history) is one added or updated record
    const versions = await sqlRows(b, 'SELECT (SELECT count(*) FROM salaries) + (SELECT count(*) FROM salaries__history) AS n');
    expect(records.filter((record) => record.change !== 'deleted')).toHaveLength(Number(versions[0]!.n));
  }, 90_000);
});

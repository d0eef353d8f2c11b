import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { diffRecords, sqlRows, type Row } from './diff-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// A mirror written by the tds before history (format 1: test/fixtures/mirror-format-1, with the emulator
// state it was synced from) is upgraded in place by the first sync, every row kept.

const FIXTURE = (name: string): URL => new URL(`../fixtures/mirror-format-1/${name}.gz`, import.meta.url);
const CONTACTS = 'tbl_2yvvL2lONPIcG1';

let harness: Harness | undefined;
let fixtureHarness: () => Promise<Harness>;
it.beforeEach(({ open, tmp }) => {
  /** An emulator on the fixture's state, and the fixture's mirror as the harness's mirror. */
  fixtureHarness = async () => {
    const dataFile = join(tmp, 'emulator-state.json');
    await writeFile(dataFile, gunzipSync(await readFile(FIXTURE('emulator-state.json'))));
    const b = await open({ dataFile });
    await writeFile(b.db, gunzipSync(await readFile(FIXTURE('mirror.duckdb'))));
    return b;
  };
});

async function format(b: Harness): Promise<number> {
  const [row] = await sqlRows(b, "SELECT comment FROM duckdb_tables() WHERE table_name = '_tds_tables'");
  return Number(/format (\d+)/.exec(String(row!.comment))![1]);
}

const withoutSyncId = (rows: Row[]): Row[] => rows.map(({ _syncId: _, ...rest }) => rest);

describe('tds sync: a mirror of format 1', () => {
  it('tds sql reads it as it is and says a sync upgrades it; tds diff says so too', async () => {
    harness = await fixtureHarness();
    const read = await harness.tds(['sql', 'SELECT count(*) AS n FROM old_contacts', '--format', 'csv']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('n\n34\n');
    expect(read.stderr).toMatch(
      /note: the mirror .* was written by an earlier tds \(mirror format 1\): it has no history yet; the next tds sync upgrades it/,
    );
    const diff = await harness.tds(['diff', 'old_contacts']);
    expect(diff.code).toBe(2);
    expect(diff.stderr).toMatch(
      /has no history yet: it was written by an earlier tds \(mirror format 1\)\nhint: the next `tds sync` upgrades it/,
    );
    expect(await format(harness)).toBe(1);
  });

  it('the first sync upgrades it: every row kept as its last sync wrote it, syncs numbered in order, history tables and macros made', async () => {
    harness = await fixtureHarness();
    const before = {
      contacts: await sqlRows(harness, 'SELECT * FROM old_contacts ORDER BY "_id"'),
      events: await sqlRows(harness, 'SELECT * FROM old_events ORDER BY "_id"'),
      syncs: await sqlRows(harness, 'SELECT * FROM _tds_syncs ORDER BY started_at'),
      view: await sqlRows(harness, 'SELECT count(*) AS n FROM big_contacts'),
    };
    const result = await harness.tds(['sync', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/the mirror .* was upgraded to format 2: every row kept/);
    expect(await format(harness)).toBe(2);
    const summary = JSON.parse(result.stdout) as {
      tables: Array<{ mirrorTable: string; syncId: number; inserted: number; updated: number; deleted: number }>;
    };
    // nothing changed in the service since: the first syncs after the upgrade bring nothing
    expect(
      summary.tables.map(({ mirrorTable, syncId, inserted, updated, deleted }) => ({ mirrorTable, syncId, inserted, updated, deleted })),
    ).toEqual([
      { mirrorTable: 'old_contacts', syncId: 7, inserted: 0, updated: 0, deleted: 0 },
      { mirrorTable: 'old_events', syncId: 8, inserted: 0, updated: 0, deleted: 0 },
    ]);

    // the syncs of format 1 numbered in the order they ran, their figures kept
    const syncs = await sqlRows(harness, 'SELECT * FROM _tds_syncs WHERE sync_id <= 6 ORDER BY sync_id');
    expect(syncs.map(({ sync_id: _id, pruned: _pruned, service_ended_at: _serviceEnd, ...rest }) => rest)).toEqual(before.syncs);
    // a sync of format 1 has no end on the service's clock: a diff judges it by ended_at
    expect(syncs.every((sync) => sync.service_ended_at === null)).toBe(true);
    expect(syncs.map((row) => row.sync_id)).toEqual([1, 2, 3, 4, 5, 6]);
    // every row kept, as the table's last sync (5 and 6) wrote it
    const contacts = await sqlRows(harness, 'SELECT * FROM old_contacts ORDER BY "_id"');
    expect(withoutSyncId(contacts)).toEqual(before.contacts);
    expect(new Set(contacts.map((row) => row._syncId))).toEqual(new Set([5]));
    const events = await sqlRows(harness, 'SELECT * FROM old_events ORDER BY "_id"');
    expect(withoutSyncId(events)).toEqual(before.events);
    expect(new Set(events.map((row) => row._syncId))).toEqual(new Set([6]));
    // the history tables (empty), the macros, the names in _tds_tables; the user's view still there
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM old_contacts__history')).toEqual([{ n: 0 }]);
    expect(withoutSyncId(await sqlRows(harness, 'SELECT * FROM old_contacts_at_sync(5) ORDER BY "_id"'))).toEqual(before.contacts);
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM old_contacts_at_sync(4)')).toEqual([{ n: 0 }]);
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM old_events_at(now())')).toEqual([{ n: 10 }]);
    expect(
      await sqlRows(harness, 'SELECT mirror_table, history_table, at_sync_macro, at_macro FROM _tds_tables ORDER BY mirror_table'),
    ).toEqual([
      {
        mirror_table: 'old_contacts',
        history_table: 'old_contacts__history',
        at_sync_macro: 'old_contacts_at_sync',
        at_macro: 'old_contacts_at',
      },
      { mirror_table: 'old_events', history_table: 'old_events__history', at_sync_macro: 'old_events_at_sync', at_macro: 'old_events_at' },
    ]);
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM big_contacts')).toEqual(before.view);

    // from then on, the history: a row edited, a full sync, the diff
    const id = String(before.contacts[0]!._id);
    await harness.admin('PATCH', `/tables/${CONTACTS}/rows/${id}`, { cells: { Name: 'After the upgrade' } });
    expect((await harness.tds(['sync', '--full'])).code).toBe(0);
    const records = await diffRecords(harness, ['old_contacts']);
    expect(records.map((record) => [record.change, record._id, record.before?.Name, record.after?.Name])).toEqual([
      ['updated', id, before.contacts[0]!.Name, 'After the upgrade'],
    ]);
    // and the upgrade happened once
    expect((await harness.tds(['sync'])).stderr).not.toMatch(/upgraded/);
  });

  it('SIGKILL at seeded random moments of the first sync: the mirror is of format 1 as it was, or upgraded, never half', async () => {
    harness = await fixtureHarness();
    const b = harness;
    const original = await readFile(b.db);
    const before = await sqlRows(b, 'SELECT * FROM old_contacts ORDER BY "_id"');
    // when the upgrade runs has nothing to wait on from outside (it is the first thing the process does
    // with the file): the kill comes after a seeded delay that spans the process's start and the upgrade
    const delays = [200, 300, 400, 520];
    const outcomes = new Set<number>();
    for (const delay of delays) {
      await writeFile(b.db, original);
      const sync = b.spawn(['sync']);
      await Promise.race([sleep(delay), sync.ended]);
      sync.child.kill('SIGKILL');
      await sync.ended;
      const version = await format(b);
      outcomes.add(version);
      const rows = await sqlRows(b, 'SELECT * FROM old_contacts ORDER BY "_id"');
      if (version === 1) {
        expect(rows).toEqual(before);
        expect(await sqlRows(b, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name LIKE '%__history'")).toEqual([{ n: 0 }]);
      } else {
        expect(withoutSyncId(rows)).toEqual(before);
        expect(await sqlRows(b, 'SELECT count(*) AS n FROM old_contacts__history')).toEqual([{ n: 0 }]);
      }
      // and the next sync leaves it upgraded and whole
      expect((await b.tds(['sync'])).code).toBe(0);
      expect(await format(b)).toBe(2);
      expect(withoutSyncId(await sqlRows(b, 'SELECT * FROM old_contacts ORDER BY "_id"'))).toEqual(before);
    }
    expect(outcomes.size).toBeGreaterThan(0);
  }, 120_000);
});

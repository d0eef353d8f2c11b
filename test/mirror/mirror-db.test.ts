import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createTableSql } from '../../src/mirror/apply-schema.js';
import { createHistoryTable } from '../../src/mirror/history/history-objects.js';
import { HeldMirror, openMirror } from '../../src/mirror/mirror-db.js';
import { MirrorWriter } from '../../src/mirror/mirror-writer.js';
import { loadStates, saveState, staleFields } from '../../src/mirror/table-state.js';
import { COLUMNS as COLUMNS_OF_T, NAMES, NEW_PASS, row, state, TABLE, TARGET } from './writer-fixture.js';
import { test as it } from '../helpers/emulator-fixture.js';

// Until a checkpoint, DuckDB holds in memory the rows a commit added to a table of the file, 512 KB a
// column: a follower that writes a row or two to each of many tables while it holds the mirror must not
// pile them up (issue 30: its RSS swung by 30-40 MB so).

const TABLES = 8;
const COLUMNS = 20;

describe('HeldMirror of a follower', () => {
  it('keeps no table memory for committed rows: rows into each of many wide tables, held meanwhile', async ({ tmp }) => {
    const mirror = await HeldMirror.open(join(tmp, 'mirror.duckdb'), { memoryLimit: '256MB', threads: 1, checkpointEachCommit: true });
    try {
      const columns = Array.from({ length: COLUMNS }, (_, i) => `c${i} ${i % 2 ? 'VARCHAR' : 'DOUBLE'}`).join(', ');
      const values = Array.from({ length: COLUMNS }, (_, i) => (i % 2 ? `'v' || i` : 'i::DOUBLE')).join(', ');
      await mirror.use(async (db) => {
        for (let t = 0; t < TABLES; t += 1) {
          await db.connection.run(`CREATE TABLE t${t} (${columns})`);
          await db.connection.run(`INSERT INTO t${t} SELECT ${values} FROM range(1000) r(i)`);
        }
      });
      await mirror.letGo();
      const held = await mirror.use(async (db) => {
        for (let t = 0; t < TABLES; t += 1) await db.connection.run(`INSERT INTO t${t} SELECT ${values} FROM range(2) r(i)`);
        const reader = await db.connection.runAndReadAll(
          "SELECT coalesce(sum(memory_usage_bytes), 0)::DOUBLE AS bytes FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'",
        );
        const count = await db.connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM t${TABLES - 1}`);
        return { bytes: Number(reader.getRowObjectsJS()[0]?.bytes), rows: count.getRowObjectsJS()[0]?.n };
      });
      expect(held.rows).toBe(1002);
      // without a checkpoint at each commit: 10 MB a table (80 MB here)
      expect(held.bytes).toBeLessThan(2 * 2 ** 20);
    } finally {
      await mirror.close();
    }
  });
});

describe('_tds_tables.max_stale (issue 42)', () => {
  it('a mirror made before it reads without it (null) and gets it from the next writer; a state keeps its bound', async ({ tmp }) => {
    const path = join(tmp, 'mirror.duckdb');
    const made = await openMirror(path, { readOnly: false });
    await saveState(made.connection, { ...state(), maxStaleMs: 90_000, pass: null });
    await made.connection.run('ALTER TABLE _tds_tables DROP COLUMN max_stale');
    made.close();
    const reader = await openMirror(path, { readOnly: true });
    expect((await loadStates(reader.connection)).map((one) => one.maxStaleMs)).toEqual([null]);
    reader.close();
    const writer = await openMirror(path, { readOnly: false });
    try {
      const [old] = await loadStates(writer.connection);
      expect(old!.maxStaleMs).toBeNull();
      await saveState(writer.connection, { ...old!, maxStaleMs: 1_500 });
      expect((await loadStates(writer.connection)).map((one) => one.maxStaleMs)).toEqual([1_500]);
    } finally {
      writer.close();
    }
  });

  it.each([
    { name: 'no bound', verifiedAgoMs: 3_600_000, maxStaleMs: null, expected: { maxStale: null, stale: false, staleFor: null } },
    { name: 'within it', verifiedAgoMs: 60_000, maxStaleMs: 120_000, expected: { maxStale: 120, stale: false, staleFor: null } },
    { name: 'past it', verifiedAgoMs: 480_000, maxStaleMs: 120_000, expected: { maxStale: 120, stale: true, staleFor: 360 } },
  ])('staleness: $name', ({ verifiedAgoMs, maxStaleMs, expected }) => {
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(staleFields({ verifiedAt: new Date(now - verifiedAgoMs).toISOString(), maxStaleMs }, now)).toEqual(expected);
    expect(staleFields({ verifiedAt: null, maxStaleMs }, now).stale).toBe(false);
  });
});

describe('HeldMirror of a one-shot sync', () => {
  it('rows appended straight into a mirror table while the file was let go are handed to it by the next group', async ({ tmp }) => {
    const mirror = await HeldMirror.open(join(tmp, 'mirror.duckdb'), { memoryLimit: '256MB', threads: 1 });
    try {
      const writer = await mirror.use(async (db) => {
        await db.connection.run(createTableSql(TABLE, COLUMNS_OF_T, [{ key: '_syncId', type: 'BIGINT' }]));
        await createHistoryTable(db.connection, TABLE, NAMES);
        const opened = new MirrorWriter(db, TARGET, COLUMNS_OF_T);
        await opened.open(NEW_PASS);
        return opened;
      });
      await writer.append([row('a', '2026-01-01T00:00:00.000Z', 1)]);
      await mirror.letGo();
      await writer.append([row('b', '2026-01-01T00:00:00.000Z', 2)]);
      expect(await mirror.use(() => writer.write(state(), true))).toEqual({ inserted: 2, updated: 0 });
      await mirror.use(() => writer.close());
      await mirror.letGo();
      const ids = await mirror.use(async (db) => (await db.connection.runAndReadAll(`SELECT "_id" FROM ${TABLE} ORDER BY 1`)).getRows());
      expect(ids).toEqual([['a'], ['b']]);
    } finally {
      await mirror.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { KeyRefused, MirrorWriter } from '../../src/mirror/mirror-writer.js';
import { finishPass, FROM_EMPTY } from '../../src/mirror/pass.js';
import type { TypedValue } from '../../src/records/typed-values.js';
import { loadStates } from '../../src/mirror/table-state.js';
import {
  COLUMNS,
  contents,
  db,
  NAMES,
  NEW_PASS,
  passIds,
  reopenWriterDb,
  row,
  state,
  TABLE,
  TARGET,
  useWriterDb,
  writeRows,
} from './writer-fixture.js';

// The writer's ways: rows appended straight into the table by a pass that began on an empty one; rows
// inserted as they are from an inbox while the table holds only the pass's rows; and the upsert by `_id`
// otherwise (or when the primary key refuses a group); rows appended while a group is written go to the next one.

useWriterDb();

/** A pass that began on an empty table, written through an inbox (as after a KeyRefused). */
const INBOX_PASS = { ...NEW_PASS, straight: false };

/** The first sync (TARGET's): a complete pass of rows a (n 1) and b (n 2), both of 2026-01-01. */
async function firstSync(): Promise<void> {
  const first = new MirrorWriter(db, TARGET, COLUMNS);
  await first.open(NEW_PASS);
  await writeRows(first, [row('a', '2026-01-01T00:00:00.000Z', 1), row('b', '2026-01-01T00:00:00.000Z', 2)], state(), true);
  await first.close();
}

describe('MirrorWriter', () => {
  it("appends the rows of a pass that began on an empty table straight into the table, the table's at their group's commit, with the sync's ID", async () => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state();
    await writer.append([row('a', '2026-01-01T00:00:00.000Z', 1), row('b', '2026-01-01T00:00:00.000Z', 2)]);
    expect(await contents()).toEqual([]);
    expect(await writer.write(s, true)).toEqual({ inserted: 2, updated: 0 });
    // the same pass continued by another run: still straight
    await writer.close();
    const next = new MirrorWriter(db, TARGET, COLUMNS);
    await next.open({ ...NEW_PASS, inserted: 2 });
    expect(await writeRows(next, [row('c', '2026-01-01T00:00:00.000Z', 3)], s, true)).toEqual({ inserted: 1, updated: 0 });
    await next.close();
    expect(await contents()).toEqual([
      { _id: 'a', u: '2026-01-01 00:00:00+00', n: 1 },
      { _id: 'b', u: '2026-01-01 00:00:00+00', n: 2 },
      { _id: 'c', u: '2026-01-01 00:00:00+00', n: 3 },
    ]);
    const versions = await db.connection.runAndReadAll('SELECT DISTINCT "_syncId" FROM t');
    expect(versions.getRows()).toEqual([[BigInt(TARGET.syncId)]]);
    expect(await passIds()).toEqual([FROM_EMPTY]);
    const [saved] = await loadStates(db.connection);
    expect(saved?.pass).toMatchObject({ cursor: 'c1', inserted: 3 });
  });

  it.each([
    ['a row the table has', [row('a', '2026-01-02T00:00:00.000Z', 10), row('c', '2026-01-01T00:00:00.000Z', 3)]],
    ['a row twice in the group', [row('c', '2026-01-01T00:00:00.000Z', 3), row('c', '2026-01-02T00:00:00.000Z', 30)]],
  ])('refuses with KeyRefused a group appended straight that holds %s, and writes nothing of it', async (_case, rows) => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state();
    await writeRows(writer, [row('a', '2026-01-01T00:00:00.000Z', 1)], s, true);
    await expect(writeRows(writer, rows, state({ cursor: 'c2' }), true)).rejects.toBeInstanceOf(KeyRefused);
    await writer.close();
    expect(await contents()).toEqual([{ _id: 'a', u: '2026-01-01 00:00:00+00', n: 1 }]);
    const [saved] = await loadStates(db.connection);
    expect(saved?.pass).toMatchObject({ cursor: 'c1', inserted: 1 });
  });

  it('inserts the groups of a pass into an empty table, and falls back to the upsert for a row it already has', async () => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(INBOX_PASS);
    const s = state();
    expect(await writeRows(writer, [row('a', '2026-01-01T00:00:00.000Z', 1), row('b', '2026-01-01T00:00:00.000Z', 2)], s, true)).toEqual({
      inserted: 2,
      updated: 0,
    });
    // b again (changed), and c: the primary key refuses b, the group is written the general way
    expect(await writeRows(writer, [row('b', '2026-01-02T00:00:00.000Z', 20), row('c', '2026-01-01T00:00:00.000Z', 3)], s, true)).toEqual({
      inserted: 1,
      updated: 1,
    });
    await writer.close();
    expect(await contents()).toEqual([
      { _id: 'a', u: '2026-01-01 00:00:00+00', n: 1 },
      { _id: 'b', u: '2026-01-02 00:00:00+00', n: 20 },
      { _id: 'c', u: '2026-01-01 00:00:00+00', n: 3 },
    ]);
    // the pass began on an empty table: every row of it is one the pass read, no ID is noted
    expect(await passIds()).toEqual([FROM_EMPTY]);
    const [saved] = await loadStates(db.connection);
    expect(saved?.pass).toMatchObject({ cursor: 'c1', inserted: 3, updated: 1 });
  });

  it('upserts into a table that holds rows the pass did not insert; unchanged rows are kept unless rewritten', async () => {
    await firstSync();
    await db.connection.run('DELETE FROM _tds_pass');
    // a new incremental pass: the table holds 2 rows, the pass inserted none
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state({ mode: 'incremental' });
    const counts = await writeRows(
      writer,
      [row('a', '2026-01-01T00:00:00.000Z', 100), row('b', '2026-01-03T00:00:00.000Z', 2), row('c', '2026-01-01T00:00:00.000Z', 3)],
      s,
      false,
    );
    await writer.close();
    expect(counts).toEqual({ inserted: 1, updated: 1 });
    expect(await contents()).toEqual([
      { _id: 'a', u: '2026-01-01 00:00:00+00', n: 1 }, // same _updatedAt: not rewritten
      { _id: 'b', u: '2026-01-03 00:00:00+00', n: 2 },
      { _id: 'c', u: '2026-01-01 00:00:00+00', n: 3 },
    ]);
    expect(await passIds()).toEqual(['a', 'b', 'c']);
  });

  it('a failed group leaves nothing of it behind, and the writer goes on', async () => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state();
    await expect(writeRows(writer, [row('a', '2026-01-01T00:00:00.000Z', 1), ['b', 'not a time', null, 1]], s, true)).rejects.toThrow();
    expect(await contents()).toEqual([]);
    expect(await passIds()).toEqual([FROM_EMPTY]);
    expect(await loadStates(db.connection)).toEqual([]);
    expect(await writeRows(writer, [row('c', '2026-01-01T00:00:00.000Z', 3)], s, true)).toEqual({ inserted: 1, updated: 0 });
    await writer.close();
    expect(await contents()).toEqual([{ _id: 'c', u: '2026-01-01 00:00:00+00', n: 3 }]);
  });

  it('keeps the copy read last of a row read twice in one group, counted once, in either way', async () => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(INBOX_PASS);
    const s = state();
    // an empty table: the primary key refuses the second copy, the group is written the general way
    expect(
      await writeRows(
        writer,
        [row('a', '2026-01-01T00:00:00.000Z', 1), row('b', '2026-01-01T00:00:00.000Z', 2), row('a', '2026-01-02T00:00:00.000Z', 10)],
        s,
        true,
      ),
    ).toEqual({ inserted: 2, updated: 0 });
    expect(await writeRows(writer, [row('b', '2026-01-03T00:00:00.000Z', 20), row('b', '2026-01-04T00:00:00.000Z', 21)], s, false)).toEqual(
      { inserted: 0, updated: 1 },
    );
    await writer.close();
    expect(await contents()).toEqual([
      { _id: 'a', u: '2026-01-02 00:00:00+00', n: 10 },
      { _id: 'b', u: '2026-01-04 00:00:00+00', n: 21 },
    ]);
  });

  it('writes in a group only the rows appended before it began; those appended meanwhile wait for the next', async () => {
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state();
    await writer.append([row('a', '2026-01-01T00:00:00.000Z', 1)]);
    const first = writer.write(s, true);
    await writer.append([row('b', '2026-01-01T00:00:00.000Z', 2), row('c', '2026-01-01T00:00:00.000Z', 3)]);
    expect(writer.waiting).toBe(2);
    expect(await first).toEqual({ inserted: 1, updated: 0 });
    expect((await contents()).map((each) => each._id)).toEqual(['a']);
    expect(await writer.write(s, true)).toEqual({ inserted: 2, updated: 0 });
    expect(writer.waiting).toBe(0);
    await writer.close();
    expect((await contents()).map((each) => each._id)).toEqual(['a', 'b', 'c']);
  });

  it('a pass that began on an empty table notes no IDs, nor does one that continues it, and its end deletes nothing; a pass over rows notes them', async () => {
    const first = new MirrorWriter(db, TARGET, COLUMNS);
    await first.open(NEW_PASS);
    const s = state();
    await writeRows(first, [row('a', '2026-01-01T00:00:00.000Z', 1), row('b', '2026-01-01T00:00:00.000Z', 2)], s, true);
    await first.close();
    // the same pass continued by another run (after a crash): the table holds only its rows
    const next = new MirrorWriter(db, TARGET, COLUMNS);
    await next.open({ tableId: s.tableId, inserted: 2 });
    await writeRows(next, [row('c', '2026-01-01T00:00:00.000Z', 3)], s, true);
    await next.close();
    expect(await passIds()).toEqual([FROM_EMPTY]);
    expect(await finishPass(db, s, { pass: s.pass!, syncId: 7, serviceRowCount: 3 })).toBe(0);
    expect((await contents()).map((each) => each._id)).toEqual(['a', 'b', 'c']);
    // a new full pass over those rows notes each: the one it does not see is gone
    const again = state();
    const full = new MirrorWriter(db, { ...TARGET, syncId: 8 }, COLUMNS);
    await full.open(NEW_PASS);
    await writeRows(full, [row('a', '2026-01-01T00:00:00.000Z', 1), row('c', '2026-01-01T00:00:00.000Z', 3)], again, true);
    await full.close();
    expect(await passIds()).toEqual(['a', 'c']);
    expect(await finishPass(db, again, { pass: again.pass!, syncId: 8, serviceRowCount: 2 })).toBe(1);
    expect((await contents()).map((each) => each._id)).toEqual(['a', 'c']);
  });

  it("raises DuckDB's limit for the table's index only before a write that changes it (a row inserted or deleted)", async () => {
    // 50,000 rows: their index (about 64 bytes a row) needs more room than a limit of 44 MB leaves beside the 40 MiB kept free
    const rows = Array.from({ length: 50_000 }, (_, i) => row(`row_${(i * 2654435761) % 4294967296}_${i}`, '2026-01-01T00:00:00.000Z', i));
    const first = new MirrorWriter(db, TARGET, COLUMNS);
    await first.open(NEW_PASS);
    const s = state();
    await writeRows(first, rows, s, true);
    await first.close();
    await finishPass(db, s, { pass: s.pass!, syncId: 7, serviceRowCount: rows.length });
    const limit = async (): Promise<string> =>
      String((await db.connection.runAndReadAll("SELECT current_setting('memory_limit') AS m")).getRowObjectsJS()[0]?.m);
    /** A pass over `read` with a limit of 44 MB, the file opened anew; returns its deletions and the limit after. */
    const pass = async (read: TypedValue[][], syncId: number): Promise<{ deleted: number; before: string; after: string }> => {
      await reopenWriterDb({ memoryLimit: '44MB', threads: 1 }, true);
      const before = await limit();
      const each = state();
      const writer = new MirrorWriter(db, { ...TARGET, syncId }, COLUMNS);
      await writer.open(NEW_PASS);
      await writeRows(writer, read, each, true);
      await writer.close();
      const deleted = await finishPass(db, each, { pass: each.pass!, syncId, serviceRowCount: read.length });
      return { deleted, before, after: await limit() };
    };
    // unchanged, none gone: the index is left alone
    const unchanged = await pass(rows, 8);
    expect(unchanged.deleted).toBe(0);
    expect(unchanged.after).toBe(unchanged.before);
    // one row gone at the end
    const fewer = await pass(rows.slice(1), 9);
    expect(fewer.deleted).toBe(1);
    expect(fewer.after).not.toBe(fewer.before);
    // one row inserted
    const more = await pass([...rows.slice(1), row('new', '2026-01-01T00:00:00.000Z', -1)], 10);
    expect(more.deleted).toBe(0);
    expect(more.after).not.toBe(more.before);
    const counted = await db.connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${TABLE}`);
    expect(counted.getRowObjectsJS()[0]?.n).toBe(rows.length);
  });

  it('writes a table whose primary key outgrows the memory DuckDB was given (the limit follows the index)', async () => {
    await reopenWriterDb({ memoryLimit: '16MB', threads: 1 });
    const writer = new MirrorWriter(db, TARGET, COLUMNS);
    await writer.open(NEW_PASS);
    const s = state();
    const rows = 400_000;
    for (let start = 0; start < rows; start += 16_384) {
      const group = Array.from({ length: Math.min(16_384, rows - start) }, (_, i) =>
        row(`row_${((start + i) * 2654435761) % 4294967296}_${start + i}`, '2026-01-01T00:00:00.000Z', start + i),
      );
      await writeRows(writer, group, s, true);
    }
    await writer.close();
    const counted = await db.connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${TABLE}`);
    expect(counted.getRowObjectsJS()[0]?.n).toBe(rows);
  });
});

describe('MirrorWriter: versions', () => {
  async function table(name: string): Promise<Array<Record<string, unknown>>> {
    const extra = name === TABLE ? '' : ', "_replacedBy", "_change", "_replacedAt"::VARCHAR AS at';
    const reader = await db.connection.runAndReadAll(
      `SELECT "_id", "_updatedAt"::VARCHAR AS u, n, "_syncId"${extra} FROM ${name} ORDER BY "_id", u`,
    );
    return reader
      .getRowObjectsJS()
      .map((each) =>
        Object.fromEntries(Object.entries(each).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])),
      );
  }

  it('a row read with another _updatedAt moves the version the mirror held into the history, replaced by this sync at the new _updatedAt', async () => {
    await firstSync();
    const next = new MirrorWriter(db, { ...TARGET, syncId: 8 }, COLUMNS);
    await next.open(NEW_PASS);
    const counts = await writeRows(
      next,
      [row('a', '2026-01-05T00:00:00.000Z', 10), row('b', '2026-01-01T00:00:00.000Z', 2)],
      state({ mode: 'incremental' }),
      false,
    );
    await next.close();
    expect(counts).toEqual({ inserted: 0, updated: 1 });
    expect(await table(TABLE)).toEqual([
      { _id: 'a', u: '2026-01-05 00:00:00+00', n: 10, _syncId: 8 },
      { _id: 'b', u: '2026-01-01 00:00:00+00', n: 2, _syncId: 7 },
    ]);
    expect(await table(NAMES.historyTable)).toEqual([
      { _id: 'a', u: '2026-01-01 00:00:00+00', n: 1, _syncId: 7, _replacedBy: 8, _change: 'updated', at: '2026-01-05 00:00:00+00' },
    ]);
  });

  it('a full pass writes an unchanged row again only when its values differ, as the same version (its _syncId kept, no history)', async () => {
    await firstSync();
    const full = new MirrorWriter(db, { ...TARGET, syncId: 9 }, COLUMNS);
    await full.open(NEW_PASS);
    // a: the same version with another value (a relabelled option, say); b: the same in every value
    const counts = await writeRows(
      full,
      [row('a', '2026-01-01T00:00:00.000Z', 100), row('b', '2026-01-01T00:00:00.000Z', 2)],
      state(),
      true,
    );
    await full.close();
    expect(counts).toEqual({ inserted: 0, updated: 0 });
    expect(await table(TABLE)).toEqual([
      { _id: 'a', u: '2026-01-01 00:00:00+00', n: 100, _syncId: 7 },
      { _id: 'b', u: '2026-01-01 00:00:00+00', n: 2, _syncId: 7 },
    ]);
    expect(await table(NAMES.historyTable)).toEqual([]);
  });
});

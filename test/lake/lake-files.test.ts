import { spawn } from 'node:child_process';
import { mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { openDatabase } from '../../src/duckdb/engine.js';
import { quoteLiteral } from '../../src/duckdb/sql-text.js';
import { commitPartition } from '../../src/lake/commit-partition.js';
import { addEveryTypeRows } from '../e2e/sync-support.js';
import { everyTypeTable } from '../mirror/helpers.js';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// The lake's files on disk: private as the mirror is, `.partial` files a killed write left removed by the
// next write, and a partition of wide rows written within a sync's memory limit.

const openHarness = useOpenOfEachTest();

/** Every file and folder under `root`, with its mode. */
async function modes(root: string): Promise<Array<{ path: string; mode: number; folder: boolean }>> {
  const found: Array<{ path: string; mode: number; folder: boolean }> = [];
  for (const name of await readdir(root, { recursive: true })) {
    const info = await stat(join(root, name));
    found.push({ path: name, mode: info.mode & 0o777, folder: info.isDirectory() });
  }
  return found;
}

/** The PID of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the lake on disk', () => {
  it('part files, snapshots, markers and READMEs are 0600 and folders 0700, whatever the umask', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 5, from: 1 });
    const before = process.umask(0o022);
    try {
      expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
      const compact = await harness.tds(['lake', 'compact', lake]);
      expect(compact.code, compact.stderr).toBe(0);
    } finally {
      process.umask(before);
    }
    const entries = await modes(lake);
    expect(entries.map((entry) => entry.path)).toEqual(
      expect.arrayContaining([
        join('every_type', 'changes', 'sync_id=1', 'part-0.parquet'),
        join('every_type', 'snapshot', 'as_of=1', 'part-0.parquet'),
      ]),
    );
    for (const entry of entries)
      expect({ path: entry.path, mode: entry.mode }).toEqual({ path: entry.path, mode: entry.folder ? 0o700 : 0o600 });
  });

  it('a .partial a killed write left in _temporary is removed by the next write; one still being written stays', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 3, from: 1 });
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    const temporary = join(lake, 'every_type', 'changes', '_temporary');
    await mkdir(temporary, { recursive: true });
    const killed = `${await endedPid()}-0a1b2c3d4e5f.parquet.partial`;
    const older = '9f8e7d6c5b4a.parquet.partial'; // an earlier tds's name, untouched for two hours
    const writing = `${process.pid}-aaaaaaaaaaaa.parquet.partial`;
    for (const name of [killed, older, writing]) await writeFile(join(temporary, name), 'PAR1 half a file');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(join(temporary, older), twoHoursAgo, twoHoursAgo);

    await addEveryTypeRows(harness, table.id, { count: 1, from: 50 });
    const synced = await harness.tds(['sync', table.id, '--lake', lake]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toMatch(/every_type: 1 version to the lake \(sync_id=2\)/);
    expect(await readdir(temporary)).toEqual([writing]);
  });
});

describe('a partition of wide rows', () => {
  it('is written within a sync’s 64 MB: 30,000 rows of 9 cells of 200 characters', async ({ tmp }) => {
    // the mirror as a sync has it: a file attached to an in-memory database of 64 MB that spills beside it
    const mirror = join(tmp, 'mirror.duckdb');
    const setup = await openDatabase(mirror, { readOnly: false, what: 'the mirror' });
    const pads = Array.from({ length: 9 }, (_, i) => `"Pad ${i}"`);
    try {
      await setup.connection.run(
        `CREATE TABLE t ("_id" VARCHAR PRIMARY KEY, "_syncId" BIGINT, ${pads.map((pad) => `${pad} VARCHAR`).join(', ')})`,
      );
      await setup.connection.run(
        `INSERT INTO t SELECT 'row' || i, 1, ${pads.map((_, k) => `repeat(chr((65 + (i + ${k}) % 26)::INTEGER), 200) || i`).join(', ')} FROM range(30000) r(i)`,
      );
    } finally {
      setup.close();
    }
    const db = await openDatabase(':memory:', { readOnly: false, what: 'the sync', memoryLimit: '64MB', threads: 1, privateFiles: true });
    try {
      await db.connection.run(`SET temp_directory = ${quoteLiteral(`${mirror}.tmp`)}`);
      await db.connection.run(`ATTACH ${quoteLiteral(mirror)} AS mirror`);
      await db.connection.run('USE mirror');
      const partition = join(tmp, 'lake', 't', 'changes', 'sync_id=1');
      const rows = await commitPartition({
        connection: db.connection,
        query: `SELECT *, 'inserted' AS _change FROM t WHERE "_syncId" = 1`,
        folder: partition,
        temporary: join(tmp, 'lake', 't', 'changes', '_temporary'),
      });
      expect(rows).toBe(30_000);
      const read = await db.connection.runAndReadAll(
        `SELECT count(DISTINCT "_id")::INTEGER AS n, min(length("Pad 8"))::INTEGER AS width FROM read_parquet(${quoteLiteral(join(partition, 'part-0.parquet'))})`,
      );
      expect(read.getRowObjectsJS()).toEqual([{ n: 30_000, width: 201 }]);
    } finally {
      db.close();
    }
  });
});

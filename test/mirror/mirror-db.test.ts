import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeldMirror } from '../../src/mirror/mirror-db.js';

// Until a checkpoint, DuckDB holds in memory the rows a commit added to a table of the file, 512 KB a
// column: a follower that writes a row or two to each of many tables while it holds the mirror must not
// pile them up (issue 30: its RSS swung by 30-40 MB so).

const TABLES = 8;
const COLUMNS = 20;

let dir: string;
let mirror: HeldMirror;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-mirror-db-'));
  mirror = await HeldMirror.open(join(dir, 'mirror.duckdb'), { memoryLimit: '256MB', threads: 1, checkpointEachCommit: true });
});

afterEach(async () => {
  await mirror.close();
  await rm(dir, { recursive: true, force: true });
});

describe('HeldMirror of a follower', () => {
  it('keeps no table memory for committed rows: rows into each of many wide tables, held meanwhile', async () => {
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
  });
});

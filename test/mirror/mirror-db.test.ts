import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { HeldMirror } from '../../src/mirror/mirror-db.js';
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

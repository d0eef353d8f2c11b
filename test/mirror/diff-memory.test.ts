import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/duckdb/engine.js';
import { TableDiff, type DiffKey } from '../../src/mirror/diff/table-diff.js';

// The records of `tds sync --changes` (and `tds diff`) are sorted by DuckDB, which keeps what it sorts
// in memory, long strings at many times their size: in one query, 2,000 added rows of 2 KB (cells of
// 200 characters, the most a row page gives whole) ran a sync's 64 MB out (issue 29/30's --changes
// replay). The records now come a part of the order at a time, the order sorted from narrow rows.

const PADS = 9;
const ROWS = 3_000;

describe('TableDiff under a sync’s memory limit', () => {
  it(`streams ${ROWS} added rows of ${PADS} cells of 200 characters within 64 MB`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tds-diff-memory-'));
    const db = await openDatabase(join(dir, 'mirror.duckdb'), { readOnly: false, what: 'the mirror', memoryLimit: '64MB', threads: 1 });
    try {
      const pads = Array.from({ length: PADS }, (_, i) => `"Pad ${i}"`);
      const columns = `"_id" VARCHAR PRIMARY KEY, "_createdAt" TIMESTAMPTZ, "_updatedAt" TIMESTAMPTZ, "_syncId" INTEGER, ${pads.map((pad) => `${pad} VARCHAR`).join(', ')}`;
      await db.connection.run(`CREATE TABLE t (${columns})`);
      await db.connection.run(
        `CREATE TABLE h (${columns.replace(' PRIMARY KEY', '')}, "_replacedBy" INTEGER, "_change" VARCHAR, "_replacedAt" TIMESTAMPTZ)`,
      );
      await db.connection.run(
        `INSERT INTO t SELECT 'row' || i, TIMESTAMPTZ '2026-01-01' + INTERVAL (i) SECOND, TIMESTAMPTZ '2026-01-02' + INTERVAL (i) SECOND, 2, ` +
          `${pads.map(() => `repeat('x', 200)`).join(', ')} FROM range(${ROWS}) r(i)`,
      );
      const keys: DiffKey[] = [
        { key: '_createdAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_createdAt"' },
        { key: '_updatedAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_updatedAt"' },
        ...pads.map((pad) => ({ key: pad.slice(1, -1), type: 'VARCHAR', sql: pad })),
      ];
      const diff = new TableDiff(db.connection, { table: 't', historyTable: 'h' }, keys, {
        since: { kind: 'sync', n: 1 },
        until: { kind: 'sync', n: 2 },
      });
      let added = 0;
      for await (const record of diff.records()) if (record.change === 'added' && record.after?.['Pad 0'] === 'x'.repeat(200)) added += 1;
      expect(added).toBe(ROWS);
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

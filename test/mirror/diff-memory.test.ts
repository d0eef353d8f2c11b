import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { TableDiff, type DiffKey, type DiffRecord } from '../../src/mirror/diff/table-diff.js';

// The records of `tds sync --changes` (and `tds diff`) are sorted by DuckDB, which keeps what it sorts
// in memory, long strings at many times their size: in one query, 2,000 added rows of 2 KB (cells of
// 200 characters, the most a row page gives whole) ran a sync's 64 MB out (issue 29/30's --changes
// replay). The records now come a part of the order at a time, the order sorted from narrow rows.

const PADS = 9;
const ROWS = 3_000;
const UPDATED = 12_000;
const pads = Array.from({ length: PADS }, (_, i) => `"Pad ${i}"`);
const padKeys: DiffKey[] = pads.map((pad) => ({ key: pad.slice(1, -1), type: 'VARCHAR', sql: pad }));
const UPDATED_AT: DiffKey = { key: '_updatedAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_updatedAt"' };

/**
 * A mirror file under DuckDB's limit `memoryLimit`, with a table t of PADS wide text columns and its history h
 * (as `fill` fills them), and `take` given the records of the diff from sync 1 to sync 2 over `keys`.
 */
async function wideMirror(
  memoryLimit: string,
  fill: (db: Database) => Promise<unknown>,
  keys: DiffKey[],
  take: (records: AsyncGenerator<DiffRecord>) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tds-diff-memory-'));
  const db = await openDatabase(join(dir, 'mirror.duckdb'), { readOnly: false, what: 'the mirror', memoryLimit, threads: 1 });
  try {
    const columns = `"_id" VARCHAR PRIMARY KEY, "_createdAt" TIMESTAMPTZ, "_updatedAt" TIMESTAMPTZ, "_syncId" INTEGER, ${pads.map((pad) => `${pad} VARCHAR`).join(', ')}`;
    await db.connection.run(`CREATE TABLE t (${columns})`);
    await db.connection.run(
      `CREATE TABLE h (${columns.replace(' PRIMARY KEY', '')}, "_replacedBy" INTEGER, "_change" VARCHAR, "_replacedAt" TIMESTAMPTZ)`,
    );
    await fill(db);
    const diff = new TableDiff(db.connection, { table: 't', historyTable: 'h' }, keys, {
      since: { kind: 'sync', n: 1 },
      until: { kind: 'sync', n: 2 },
    });
    await take(diff.records());
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('TableDiff under a sync’s memory limit', () => {
  it(`streams ${ROWS} added rows of ${PADS} cells of 200 characters within 64 MB`, async () => {
    let added = 0;
    await wideMirror(
      '64MB',
      (db) =>
        db.connection.run(
          `INSERT INTO t SELECT 'row' || i, TIMESTAMPTZ '2026-01-01' + INTERVAL (i) SECOND, TIMESTAMPTZ '2026-01-02' + INTERVAL (i) SECOND, 2, ` +
            `${pads.map(() => `repeat('x', 200)`).join(', ')} FROM range(${ROWS}) r(i)`,
        ),
      [{ key: '_createdAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_createdAt"' }, UPDATED_AT, ...padKeys],
      async (records) => {
        for await (const record of records) if (record.change === 'added' && record.after?.['Pad 0'] === 'x'.repeat(200)) added += 1;
      },
    );
    expect(added).toBe(ROWS);
  });

  // Both sides wide, their records 45 MB of JSON, in what a sync of a large table leaves beside its index (the
  // index's headroom, index-memory.ts, less a group's growth of the index): only the slices' sizes keep the
  // join within it, and the order of the records must be cut from their widths without reading them again.
  it(`streams ${UPDATED} rows of ${PADS} cells of 200 characters updated in every cell within 36 MB`, async () => {
    const version = (cell: string, at: string, syncId: number): string =>
      `'row' || i, TIMESTAMPTZ '2026-01-01' + INTERVAL (i) SECOND, TIMESTAMPTZ '${at}' + INTERVAL (i) SECOND, ${syncId}, ` +
      pads.map((_, k) => `repeat('${cell}', 190) || lpad(((i * 7 + ${k}) % 9973)::VARCHAR, 10, '0')`).join(', ');
    let updated = 0;
    await wideMirror(
      '36MB',
      async (db) => {
        await db.connection.run(`INSERT INTO t SELECT ${version('y', '2026-01-03', 2)} FROM range(${UPDATED}) r(i)`);
        await db.connection.run(
          `INSERT INTO h SELECT ${version('x', '2026-01-02', 1)}, 2, 'updated', TIMESTAMPTZ '2026-01-03' FROM range(${UPDATED}) r(i)`,
        );
      },
      [UPDATED_AT, ...padKeys],
      async (records) => {
        for await (const record of records) {
          const [before, after] = [String(record.before?.['Pad 8']), String(record.after?.['Pad 8'])];
          if (record.change === 'updated' && before.startsWith('x') && after.startsWith('y')) updated += 1;
        }
      },
    );
    expect(updated).toBe(UPDATED);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { fitIndexMemory, limitBytes } from '../../src/mirror/index-memory.js';

// A primary key on random IDs keeps its index in DuckDB's memory while rows are written: past the memory
// limit the commit fails. fitIndexMemory raises the limit with the index.

const ROWS = 400_000;
const GROUP = 8_192;

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-index-memory-'));
  db = await openDatabase(join(dir, 'mirror.duckdb'), { readOnly: false, what: 'the mirror', memoryLimit: '16MB', threads: 1 });
  await db.connection.run('CREATE TABLE t ("_id" VARCHAR PRIMARY KEY, n DOUBLE)');
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

/** ROWS rows with random-looking IDs, a group a transaction, as a sync writes them. */
async function writeGroups(fit: boolean): Promise<void> {
  for (let start = 0; start < ROWS; start += GROUP) {
    await db.connection.run('BEGIN TRANSACTION');
    await db.connection.run(`INSERT INTO t SELECT 'row_' || md5(i::VARCHAR)[1:20], i FROM range(${start}, ${start + GROUP}) r(i)`);
    await db.connection.run('COMMIT');
    if (fit) await fitIndexMemory(db.connection);
  }
}

async function limit(): Promise<number> {
  const reader = await db.connection.runAndReadAll("SELECT current_setting('memory_limit') AS m");
  return limitBytes(String(reader.getRowObjectsJS()[0]?.m));
}

describe('fitIndexMemory', () => {
  it('raises the memory limit as the index grows, so every group commits', async () => {
    const before = await limit();
    await writeGroups(true);
    const counted = await db.connection.runAndReadAll('SELECT count(*)::INTEGER AS n FROM t');
    expect(counted.getRowObjectsJS()[0]?.n).toBe(Math.ceil(ROWS / GROUP) * GROUP);
    expect(await limit()).toBeGreaterThan(before + 8 * 2 ** 20);
  });

  it('without it, the same writes run out of memory', async () => {
    await expect(writeGroups(false)).rejects.toThrow(/memory|allocate/i);
  });

  it('leaves a limit with room to spare alone', async () => {
    await db.connection.run("SET memory_limit = '1GiB'");
    await fitIndexMemory(db.connection);
    expect(await limit()).toBe(2 ** 30);
  });
});

describe('limitBytes', () => {
  it.each([
    ['61.0 MiB', 61 * 2 ** 20],
    ['1.5 GiB', 1.5 * 2 ** 30],
    ['512 KiB', 512 * 2 ** 10],
    ['100 bytes', 100],
  ])('%s', (text, bytes) => {
    expect(limitBytes(text)).toBe(bytes);
  });

  it('is Infinity for what it cannot read (the limit is then left alone)', () => {
    expect(limitBytes('')).toBe(Infinity);
    expect(limitBytes('no limit')).toBe(Infinity);
  });
});

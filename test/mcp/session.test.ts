import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MirrorAccess, Session, DEFAULT_CAPS } from '../../src/mcp/session.js';
import { openMirror } from '../../src/mirror/mirror-db.js';
import { memoryContext } from '../helpers/context.js';
import { spawnTds } from '../helpers/spawn-tds.js';

// The server's mirror: reads share one read-only instance, kept open between them until another process
// waits to write the file; a sync has the file alone (after the reads under way), and meanwhile reads and
// another sync are refused with a message saying why.

let dir: string;
let path: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-mirror-access-'));
  path = join(dir, 'mirror.duckdb');
  (await openMirror(path, { readOnly: false })).close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('MirrorAccess', () => {
  it('shares one read-only instance among reads, one after the other', async () => {
    const access = new MirrorAccess(path, 60_000);
    try {
      const order: string[] = [];
      const first = gate();
      const [a, b] = await Promise.all([
        access.read(async (db) => {
          await first.promise;
          order.push('first');
          return db;
        }),
        access.read(async (db) => {
          order.push('second');
          return db;
        }),
        Promise.resolve().then(() => first.open()),
      ]);
      expect(a).toBe(b);
      expect(order).toEqual(['first', 'second']);
      const reader = await access.read((db) => db.connection.runAndReadAll('SELECT count(*) AS n FROM _tds_tables'));
      expect(Number(reader.getRowObjectsJS()[0]!.n)).toBe(0);
      await expect(access.read((db) => db.connection.run('CREATE TABLE t (a INTEGER)'))).rejects.toThrow(/read-only/);
    } finally {
      await access.close();
    }
  });

  it('lets a sync start once the reads under way end, and refuses reads and a second sync meanwhile', async () => {
    const access = new MirrorAccess(path, 60_000);
    const reading = gate();
    const syncing = gate();
    const events: string[] = [];
    const read = access.read(async () => {
      await reading.promise;
      events.push('read ended');
    });
    const sync = access.write('Leads', async () => {
      events.push('sync began');
      await syncing.promise;
    });
    await expect(access.read(async () => undefined)).rejects.toThrow(/cannot read the mirror .* while this server syncs it since/);
    await expect(access.write('Signups', async () => undefined)).rejects.toThrow(
      /a sync is already running in this server \(Leads\) since/,
    );
    reading.open();
    await read;
    syncing.open();
    await sync;
    expect(events).toEqual(['read ended', 'sync began']);
    expect(access.syncing).toBe(false);
    await expect(access.read(async () => 'again')).resolves.toBe('again');
    await access.close();
  });

  it('opens the file afresh after a sync (a sync writes with an instance of its own)', async () => {
    const access = new MirrorAccess(path, 60_000);
    const before = await access.read(async (db) => db);
    await access.write('Leads', async () => {
      const writer = await openMirror(path, { readOnly: false });
      await writer.connection.run('CREATE TABLE made_by_sync (a INTEGER)');
      writer.close();
    });
    const after = await access.read(async (db) => db);
    expect(after).not.toBe(before);
    const reader = await access.read((db) =>
      db.connection.runAndReadAll("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'made_by_sync'"),
    );
    expect(Number(reader.getRowObjectsJS()[0]!.n)).toBe(1);
    await access.close();
  });

  it("the server's mirror stays open between calls: a warm query costs no open", async () => {
    const { ctx } = memoryContext();
    const session = new Session(ctx, {
      db: { path, from: 'the test' },
      checks: { path: join(dir, 'tds-checks.yaml'), from: 'the test' },
      allowPush: false,
      caps: DEFAULT_CAPS,
      version: '0',
      delivery: { rateScale: 1 },
      connect: () => Promise.reject(new Error('no service in this test')),
      hintsOf: () => undefined,
    });
    try {
      const first = await session.mirror.read(async (db) => db);
      const second = await session.mirror.read(async (db) => db);
      expect(second).toBe(first);
    } finally {
      await session.close();
    }
  });

  it('lets go of the open mirror as soon as another process waits to write it, however long it may stay idle', async () => {
    const access = new MirrorAccess(path, 3_600_000);
    try {
      const before = await access.read(async (db) => db);
      // a read that stops at its first rows (query_sql's cut results) leaves DuckDB's result holding the database
      await access.read(async (db) => (await db.connection.stream('SELECT * FROM range(1000000)')).fetchChunk());
      // a writer in another process waits for the file (DuckDB locks it per process) for up to 120 s
      const writer = spawnTds(['sql', '--write', 'CREATE TABLE written_meanwhile AS SELECT 1 AS a', '--db', path]);
      expect(await writer.exit, writer.stderr()).toBe(0);
      const after = await access.read(async (db) => db);
      expect(after).not.toBe(before);
      const reader = await access.read((db) =>
        db.connection.runAndReadAll("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'written_meanwhile'"),
      );
      expect(Number(reader.getRowObjectsJS()[0]!.n)).toBe(1);
    } finally {
      await access.close();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { notePath, TableLock, type TableLockOptions } from '../../../src/push/key/table-lock.js';

// One push by key into a table at a time (issue 20, item 3), and the note the last one leaves for the
// next. Locks between processes are tested end to end (test/e2e/push-key-lock.test.ts); a second lock
// in this process waits just the same.

let dir: string;
let service: string;
const table = { id: 'tbl_1', name: 'Leads' };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-table-lock-'));
  service = `http://127.0.0.1:1/${randomUUID()}/v1`;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function options(said: string[], over: Partial<TableLockOptions> = {}): TableLockOptions {
  return {
    service,
    table,
    input: 'leads.csv',
    windowMs: 300,
    signal: new AbortController().signal,
    say: (line) => said.push(line),
    dir,
    ...over,
  };
}

const note = async (): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(notePath(service, table.id, dir), 'utf8')) as Record<string, unknown>;

describe('TableLock', () => {
  it('is taken at once when free, and leaves a note saying who pushes', async () => {
    const said: string[] = [];
    const lock = await TableLock.take(options(said));
    expect(said).toEqual([]);
    expect(await note()).toMatchObject({ pid: process.pid, input: 'leads.csv', state: 'pushing' });
    await lock.release({ visible: true });
    // its rows all showed: no note is left behind
    await expect(note()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a second push waits, saying which push holds the table, until the first releases it', async () => {
    const first = await TableLock.take(options([], { input: 'a.csv' }));
    const said: string[] = [];
    let taken = false;
    const second = TableLock.take(options(said, { input: 'b.csv' })).then((lock) => {
      taken = true;
      return lock;
    });
    await expect.poll(() => said.length).toBe(1);
    expect(said[0]).toMatch(
      new RegExp(
        `^another push by key into table "Leads" \\(tbl_1\\) is running: PID ${process.pid}, pushing a\\.csv since \\d\\d:\\d\\d:\\d\\d; waiting for it to end`,
      ),
    );
    expect(taken).toBe(false);
    await first.release({ visible: true });
    const lock = await second;
    expect(await note()).toMatchObject({ input: 'b.csv', state: 'pushing' });
    // the first's rows all showed: nothing more to wait for, nothing more said
    expect(said).toHaveLength(1);
    await lock.release({ visible: true });
  });

  it('another table, or the same table on another service, is another lock', async () => {
    const lock = await TableLock.take(options([]));
    const other = await TableLock.take(options([], { table: { id: 'tbl_2', name: 'Other' } }));
    const elsewhere = await TableLock.take(options([], { service: `${service}x` }));
    await Promise.all([lock, other, elsewhere].map((held) => held.release({ visible: true })));
  });

  it('after a push that stopped before its rows showed, waits out the window since its last request', async () => {
    const first = await TableLock.take(options([]));
    const lastRequestAt = Date.now();
    await first.release({ visible: false, lastRequestAt });
    const said: string[] = [];
    const lock = await TableLock.take(options(said));
    expect(Date.now()).toBeGreaterThanOrEqual(lastRequestAt + 300);
    expect(said).toEqual([
      expect.stringMatching(
        /^the last push by key into table "Leads" \(tbl_1\) \(PID \d+, leads\.csv\) ended before its rows showed; waiting 1 s/,
      ),
    ]);
    await lock.release({ visible: true });
  });

  it('does not wait when that window has passed already', async () => {
    const first = await TableLock.take(options([]));
    await first.release({ visible: false, lastRequestAt: Date.now() - 10_000 });
    const said: string[] = [];
    await (await TableLock.take(options(said))).release({ visible: true });
    expect(said).toEqual([]);
  });

  it('after a push killed while pushing (its note says so), waits out the window from now', async () => {
    await writeFile(
      notePath(service, table.id, dir),
      JSON.stringify({ pid: 999_999, input: 'x.csv', since: new Date().toISOString(), state: 'pushing' }),
    );
    const said: string[] = [];
    const before = Date.now();
    const lock = await TableLock.take(options(said));
    expect(Date.now()).toBeGreaterThanOrEqual(before + 300);
    expect(said[0]).toContain('(PID 999999, x.csv) ended before its rows showed');
    await lock.release({ visible: true });
  });

  it('an interrupt while waiting ends the wait with its reason', async () => {
    const first = await TableLock.take(options([]));
    const controller = new AbortController();
    const said: string[] = [];
    const waiting = TableLock.take(options(said, { signal: controller.signal })).catch((e: unknown) => e);
    await expect.poll(() => said.length).toBe(1);
    controller.abort(new Error('interrupted'));
    expect(await waiting).toEqual(new Error('interrupted'));
    await first.release({ visible: true });
  });
});

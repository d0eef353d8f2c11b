import { readFileSync } from 'node:fs';
import { describe, expect, vi } from 'vitest';
import { createPrng } from '../../src/emulator/seed/prng.js';
import { diffRecords, type DiffRecord, type Row } from './diff-support.js';
import { test as it, type Harness, type HarnessOptions } from '../helpers/emulator-fixture.js';
import { followInProcess } from './sync-support.js';

// `tds sync --changes` delivers every change at least once, each repeat the same record with the same
// (syncId, _id): replaying every whole line that any run printed (a pipe closed early, a SIGKILL at a
// seeded moment) onto the table as it stood before, repeats dropped, gives the mirror table.

let openHarness: (options?: HarnessOptions) => Promise<Harness>;
it.beforeEach(({ open }) => {
  openHarness = open;
});

type ChangeRecord = DiffRecord & { table: string; tableId: string; syncId: number };

/**
 * What a child's stdout can take before a reader that quits after its first read is gone, with no write
 * failing: what that read took (libuv reads 64 KiB at most) and what the kernel holds meanwhile. The
 * pipe of a spawned child is a socket pair (libuv), not a pipe(2): it holds what its writer's send buffer
 * allows (net.core.wmem_default, 208 KiB on Linux), and a write may overrun that by one buffer of at most
 * half of it. Records past this are written after the reader has gone: a write fails, and the sync is
 * left to the next --changes. (Records within it reach the kernel whole and are lost unseen: docs/history.md "History and diff", --changes.)
 */
function takenUnseen(): number {
  let sendBuffer = 212_992;
  try {
    sendBuffer = Number(readFileSync('/proc/sys/net/core/wmem_default', 'utf8').trim()) || sendBuffer;
  } catch {
    // not Linux: Linux's default, far above macOS's (8 KiB)
  }
  return 64 * 1024 + 1.5 * sendBuffer;
}

/** The most of a cell a page of rows gives whole (docs/service-api.md: longer values are cut). */
const PAD_CHARS = 200;

/** Text fields, and a row's cells of them, enough that `rows` added rows' records are twice takenUnseen. */
function padding(rows: number): { fields: Array<{ label: string; type: 'text' }>; cells: Record<string, string> } {
  const labels = Array.from({ length: Math.ceil((2 * takenUnseen()) / (rows * PAD_CHARS)) }, (_, i) => `Pad ${i + 1}`);
  return {
    fields: labels.map((label) => ({ label, type: 'text' })),
    cells: Object.fromEntries(labels.map((label) => [label, 'x'.repeat(PAD_CHARS)])),
  };
}

/** The whole lines of what a run printed (a kill or a closed pipe may cut the last one). */
const wholeLines = (text: string): ChangeRecord[] =>
  text
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as ChangeRecord);

/** Each row as the diff keys it (every value), by ID: the table at `until`. */
async function tableAt(harness: Harness, table: string, until: string): Promise<Map<string, Row>> {
  const records = await diffRecords(harness, [table, '--since', 'sync:0', '--until', until]);
  return new Map(records.map((record) => [record._id, record.after!]));
}

/** The records applied in order onto `start`, a repeat (the same syncId and _id) dropped. */
function replay(start: Map<string, Row>, records: readonly ChangeRecord[]): Map<string, Row> {
  const rows = new Map([...start].map(([id, row]) => [id, { ...row }]));
  const seen = new Map<string, string>();
  for (const record of records) {
    const name = `${record.syncId} ${record._id}`;
    const text = JSON.stringify(record);
    if (seen.has(name)) {
      expect(text, `a repeat of ${name} is the same record`).toBe(seen.get(name));
      continue;
    }
    seen.set(name, text);
    if (record.change === 'added') {
      expect(rows.has(record._id), name).toBe(false);
      rows.set(record._id, record.after!);
    } else if (record.change === 'deleted') {
      expect(rows.has(record._id), name).toBe(true);
      rows.delete(record._id);
    } else {
      expect(rows.has(record._id), name).toBe(true);
      rows.set(record._id, { ...rows.get(record._id), ...record.after });
    }
  }
  return rows;
}

describe('tds sync --changes: each change delivered', () => {
  it('a pipe closed early and SIGKILLs at seeded moments lose no change: the replay of every printed line gives the mirror', async () => {
    const random = createPrng(29);
    const b = await openHarness();
    // the 450 added rows' records are still unwritten in part when the reader goes (takenUnseen)
    const pad = padding(450);
    const created = await b.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Stream',
      fields: [{ label: 'Name', type: 'text' }, { label: 'N', type: 'number' }, ...pad.fields],
    });
    const rowsPath = `/tables/${created.table.id}/rows`;
    const ids: string[] = [];
    const addRows = async (count: number, padded = false): Promise<void> => {
      const added = await b.admin<{ rows: Array<{ id: string }> }>('POST', rowsPath, {
        rows: Array.from({ length: count }, (_, i) => ({ cells: { Name: `row ${ids.length + i}`, N: i, ...(padded ? pad.cells : {}) } })),
      });
      ids.push(...added.rows.map((row) => row.id));
    };
    await addRows(40);
    const first = await b.tds(['sync', 'Stream']);
    expect(first.code, first.stderr).toBe(0);
    const start = await tableAt(b, 'stream', 'sync:-1');
    const printed: ChangeRecord[] = [];

    // (a) 450 rows added, the reader gone after 300 bytes: exit 0, the rest delivered by the next --changes
    await addRows(450, true);
    const cut = b.spawn(['sync', 'Stream', '--changes']);
    let got = 0;
    cut.child.stdout!.on('data', (chunk: Buffer) => {
      got += chunk.length;
      if (got >= 300) cut.child.stdout!.destroy();
    });
    expect(await cut.exit, cut.stderr()).toBe(0);
    printed.push(...wholeLines(cut.stdout()));
    expect(printed.length).toBeLessThan(450);

    // (b) edits, additions and deletions, each sync killed at a seeded moment: in its pass, or as it prints
    // (seed 29: twice as it prints, then twice in its pass; the simulator's histories kill syncs with --changes at many more)
    for (let cycle = 0; cycle < 4; cycle += 1) {
      const live = ids.filter(Boolean);
      for (let k = 0; k < 12; k += 1) {
        const id = live[Math.floor(random() * live.length)]!;
        await b.admin('PATCH', `${rowsPath}/${id}`, { cells: { N: Math.floor(random() * 1000), Name: `edited ${cycle}.${k}` } });
      }
      const gone = [0, 1, 2].map(() => live[Math.floor(random() * live.length)]!);
      await b.admin('POST', `${rowsPath}/delete`, { ids: gone });
      for (const id of gone) ids[ids.indexOf(id)] = '';
      await addRows(150);
      const since = b.emu.requestLog.length;
      const sync = b.spawn(['sync', 'Stream', '--full', '--changes']);
      let done = false;
      void sync.ended.then(() => (done = true));
      const inPass = random() < 0.5;
      const pages = 1 + Math.floor(random() * 6);
      const bytes = 1 + Math.floor(random() * 40_000);
      const answered = (): number =>
        b.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows' && entry.status === 200).length;
      await vi.waitFor(() => expect(done || (inPass ? answered() >= pages : sync.stdout().length >= bytes)).toBe(true), {
        timeout: 30_000,
        interval: 2,
      });
      if (!done) sync.child.kill('SIGKILL');
      const { code, signal } = await sync.ended;
      expect(code === 0 || signal === 'SIGKILL', sync.stderr()).toBe(true);
      printed.push(...wholeLines(sync.stdout()));
    }

    // the last run delivers what the others committed and did not deliver, first
    const last = await b.tds(['sync', 'Stream', '--full', '--changes']);
    expect(last.code, last.stderr).toBe(0);
    printed.push(...wholeLines(last.stdout));
    expect(new Set(printed.map((record) => record.change))).toEqual(new Set(['added', 'updated', 'deleted']));
    expect(replay(start, printed)).toEqual(await tableAt(b, 'stream', 'now'));

    // all delivered: the next --changes has nothing to say
    const idle = await b.tds(['sync', 'Stream', '--changes']);
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toBe('');
  }, 240_000);
});

describe('tds sync --follow --changes: what an earlier run did not deliver comes first', () => {
  it('after a pipe closed early, the first round of --follow prints the rest: every added row once or more', async () => {
    const ROWS = 700;
    const b = await openHarness();
    // the added rows' records are still unwritten in part when the reader goes (takenUnseen)
    const pad = padding(ROWS);
    const created = await b.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Backlog',
      fields: [{ label: 'Name', type: 'text' }, ...pad.fields],
    });
    const first = await b.tds(['sync', 'Backlog', '--changes']);
    expect(first.code, first.stderr).toBe(0);
    const added = await b.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${created.table.id}/rows`, {
      rows: Array.from({ length: ROWS }, (_, i) => ({ cells: { Name: `row ${i}`, ...pad.cells } })),
    });

    const cut = b.spawn(['sync', 'Backlog', '--changes']);
    let got = 0;
    cut.child.stdout!.on('data', (chunk: Buffer) => {
      got += chunk.length;
      if (got >= 300) cut.child.stdout!.destroy();
    });
    expect(await cut.exit, cut.stderr()).toBe(0);
    const before = wholeLines(cut.stdout());
    expect(before.length).toBeLessThan(ROWS);

    // nothing new on the service: what the follower (in this process: its streams tell all) prints is what the
    // cut run committed and did not deliver
    const follow = followInProcess(b, ['sync', 'Backlog', '--follow', '--every', '60', '--changes']);
    await vi.waitFor(() => expect(follow.stderr()).toMatch(/synced /), { timeout: 30_000, interval: 10 });
    const followed = await follow.stop();
    expect(followed.code, followed.stderr).toBe(0);
    const after = wholeLines(followed.stdout);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set([...before, ...after].map((record) => `${record.change} ${record._id}`))).toEqual(
      new Set(added.rows.map((row) => `added ${row.id}`)),
    );
  }, 120_000);
});

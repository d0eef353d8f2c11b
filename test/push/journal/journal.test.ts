import { mkdtemp, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeBatch, type Batch, type BatchEvent } from '../../../src/push/plan/batch.js';
import { dueBatches } from '../../../src/push/plan/input-batches.js';
import { JournalIndex } from '../../../src/push/plan/resume-plan.js';
import { PushTally } from '../../../src/push/plan/tally.js';
import { JournalWriter, type OpenFile } from '../../../src/push/journal/journal-writer.js';
import { readJournal } from '../../../src/push/journal/prior-journal.js';
import {
  headerDifferences,
  journalHeader,
  type HeaderInput,
  entryOf,
  type JournalEntry,
} from '../../../src/push/journal/journal-format.js';

const headerInput: HeaderInput = {
  path: '/data/in.csv',
  format: 'csv',
  batchSize: 500,
  maxBytes: 1_000_000,
  infer: false,
  relaxColumns: false,
  target: { displayUrl: 'https://h/…abcd', fingerprint: 'f'.repeat(64) },
  bytes: 10,
  sha256: 'a'.repeat(64),
};
const batch = makeBatch(1, '', [{ record: 1, json: '{"a":1}', bytes: 7 }]);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JournalWriter and readJournal', () => {
  it('creates the journal on the first entry, header first, and reads it back', async () => {
    const path = join(dir, 'j');
    const writer = JournalWriter.create(path, journalHeader(headerInput));
    await expect(readFile(path)).rejects.toThrow();
    await Promise.all([writer.append(entryOf(batch, 'sending')), writer.append(entryOf(batch, 'accepted', { status: 200 }))]);
    await writer.close();
    const { header, entries } = await readJournal(path);
    expect(header).toMatchObject({
      journal: 'tds push',
      input: { path: '/data/in.csv', bytes: 10 },
      batching: { batchSize: 500, nest: null },
    });
    expect(entries.map((e) => [e.batch, e.state, e.status])).toEqual([
      [1, 'sending', undefined],
      [1, 'accepted', 200],
    ]);
  });

  it('appends to an existing journal on resume', async () => {
    const path = join(dir, 'j');
    const first = JournalWriter.create(path, journalHeader(headerInput));
    await first.append(entryOf(batch, 'sending'));
    await first.close();
    const second = JournalWriter.reopen(path);
    await second.append(entryOf(batch, 'unsent'));
    await second.close();
    expect((await readJournal(path)).entries.map((e) => e.state)).toEqual(['sending', 'unsent']);
  });

  it('never overwrites an existing journal', async () => {
    const path = join(dir, 'j');
    await writeFile(path, 'something');
    const writer = JournalWriter.create(path, journalHeader(headerInput));
    await expect(writer.append(entryOf(batch, 'sending'))).rejects.toThrow(/already exists/);
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe('something');
  });

  it('keeps every line of many concurrent appends (group commit)', async () => {
    const path = join(dir, 'j');
    const writer = JournalWriter.create(path, journalHeader(headerInput));
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer.append({ ...entryOf(batch, 'sending'), batch: i + 1 })));
    await writer.close();
    expect((await readJournal(path)).entries.map((e) => e.batch)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('ignores a torn last line but refuses damage elsewhere', async () => {
    const header = JSON.stringify(journalHeader(headerInput));
    const line = JSON.stringify(entryOf(batch, 'sending'));
    const torn = join(dir, 'torn');
    await writeFile(torn, `${header}\n${line}\n{"batch":1,"fir`);
    expect((await readJournal(torn)).entries).toHaveLength(1);
    const damaged = join(dir, 'damaged');
    await writeFile(damaged, `${header}\n{"batch":1,"fir\n${line}\n`);
    await expect(readJournal(damaged)).rejects.toThrow(/damaged at line 2/);
    const other = join(dir, 'other');
    await writeFile(other, '{"hello":1}\n');
    await expect(readJournal(other)).rejects.toThrow(/not a tds push journal/);
    await expect(readJournal(join(dir, 'missing'))).rejects.toThrow(/cannot read the journal/);
  });
});

describe('headerDifferences', () => {
  it('finds nothing when only the input content or path changed', () => {
    expect(
      headerDifferences(
        journalHeader(headerInput),
        journalHeader({ ...headerInput, path: '/other.csv', bytes: 99, sha256: 'b'.repeat(64) }),
      ),
    ).toEqual([]);
  });

  it('names every setting that moves batch boundaries, and another webhook', () => {
    const now = journalHeader({
      ...headerInput,
      format: 'tsv',
      batchSize: 200,
      infer: true,
      nest: '.',
      relaxColumns: true,
      target: { displayUrl: 'https://h/…wxyz', fingerprint: 'e'.repeat(64) },
    });
    expect(headerDifferences(journalHeader(headerInput), now)).toEqual([
      'the input format was "csv", now "tsv"',
      '--batch-size was 500, now 200',
      '--types was "strings", now "infer"',
      '--nest was not set, now "."',
      '--relax-columns was false, now true',
      'the webhook was https://h/…abcd, now https://h/…wxyz',
    ]);
  });
});

/**
 * Opens real files, but every write after the first `allowed` bytes writes only part, then fails with
 * ENOSPC (a disk filling up). `writes` gets the bytes each write call put in the file.
 */
function fillingDisk(allowed: number, writes: number[] = []): OpenFile {
  return async (path, flags) => {
    const handle = await open(path, flags);
    let written = 0;
    const disk = {
      write: async (buffer: Buffer, offset: number, length: number, position: number) => {
        const room = allowed - written;
        if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        const result = await handle.write(buffer, offset, Math.min(length, room), position);
        written += result.bytesWritten;
        writes.push(result.bytesWritten);
        return result;
      },
      datasync: () => handle.datasync(),
      truncate: (length: number) => handle.truncate(length),
      stat: () => handle.stat(),
      read: (buffer: Buffer, offset: number, length: number, position: number) => handle.read(buffer, offset, length, position),
      close: () => handle.close(),
    };
    return disk as unknown as FileHandle;
  };
}

describe('JournalWriter rounds', () => {
  it('writes lines appended one after another by the caller each round wakes (no line is left queued)', async () => {
    const path = join(dir, 'j');
    const writer = JournalWriter.create(path, journalHeader(headerInput));
    for (let i = 1; i <= 5; i += 1) await writer.append({ ...entryOf(batch, 'accepted'), batch: i });
    await writer.close();
    expect((await readJournal(path)).entries.map((entry) => entry.batch)).toEqual([1, 2, 3, 4, 5]);
  }, 5000);
});

describe('JournalWriter on a full disk (issue 15, item 3)', () => {
  it('fails the lines a short write tore, cuts the fragment back off, and refuses every later line', async () => {
    const path = join(dir, 'j');
    const header = `${JSON.stringify(journalHeader(headerInput))}\n`;
    // room for the header and 10 bytes more: the write of the two lines queued below stops 10 bytes into the first
    const writes: number[] = [];
    const writer = JournalWriter.create(path, journalHeader(headerInput), fillingDisk(Buffer.byteLength(header) + 10, writes));
    const appended = await Promise.allSettled([
      writer.append(entryOf(batch, 'sending')),
      writer.append(entryOf(batch, 'accepted', { status: 200 })),
    ]);
    expect(writes.at(-1)).toBe(10); // the short write did put a fragment in the file
    expect(appended[0]).toMatchObject({ status: 'rejected', reason: { code: 'UNEXPECTED', cause: { code: 'ENOSPC' } } });
    expect(appended[1]).toMatchObject({ status: 'rejected' });
    await expect(writer.append(entryOf(batch, 'sending'))).rejects.toMatchObject({ cause: { code: 'ENOSPC' } });
    await writer.close();
    // only whole lines are left: the header, without any piece of the torn line
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { journal?: string }).journal)).toEqual(['tds push']);
    expect((await readJournal(path)).entries).toEqual([]);
  });

  it('a run stopped by a full disk partway through a line: --resume reads the journal, appends after it and plans only what is left', async () => {
    const path = join(dir, 'j');
    const header = journalHeader(headerInput);
    const list = [1, 2, 3, 4, 5].map((n) => makeBatch(n, '', [{ record: n, json: `{"n":${n}}`, bytes: 7 }]));
    const bytesOf = (value: object): number => Buffer.byteLength(`${JSON.stringify(value)}\n`);
    // the first run: batch 1 taken in, batch 2's request left, and the disk fills 10 bytes into batch 2's outcome
    const firstRun = [entryOf(list[0]!, 'sending'), entryOf(list[0]!, 'accepted', { status: 200 }), entryOf(list[1]!, 'sending')];
    const room = bytesOf(header) + firstRun.reduce((sum, entry) => sum + bytesOf(entry), 0) + 10;
    const writes: number[] = [];
    const first = JournalWriter.create(path, header, fillingDisk(room, writes));
    for (const entry of firstRun) await first.append(entry);
    await expect(first.append(entryOf(list[1]!, 'accepted', { status: 200 }))).rejects.toMatchObject({ cause: { code: 'ENOSPC' } });
    await first.close();
    expect(writes.at(-1)).toBe(10);
    expect((await readFile(path, 'utf8')).endsWith('\n')).toBe(true);

    // the resume (the disk has room again): batch 2 is uncertain, 3–5 are due
    const before = await readJournal(path);
    expect(before.entries.map((e) => `${e.batch}:${e.state}`)).toEqual(['1:sending', '1:accepted', '2:sending']);
    const resumed = await plan(list, before.entries);
    expect(resumed.due).toEqual([3, 4, 5]);
    expect(resumed.tally.uncertain.map((u) => u.batch)).toEqual(['2']);
    const second = JournalWriter.reopen(path);
    for (const batch of list.slice(2)) {
      await second.append(entryOf(batch, 'sending'));
      await second.append(entryOf(batch, 'accepted', { status: 200 }));
    }
    await second.close();

    // read once more (the next --resume or --dry-run): whole lines, every batch settled but the uncertain one
    const after = await readJournal(path);
    expect(after.entries).toHaveLength(9);
    const again = await plan(list, after.entries);
    expect(again.due).toEqual([]);
    expect(again.tally.already.batches).toBe(4);
    expect(again.tally.uncertain.map((u) => u.batch)).toEqual(['2']);
  });

  it('cuts a torn last line (a crash mid-write) off before appending after it', async () => {
    const path = join(dir, 'j');
    const header = `${JSON.stringify(journalHeader(headerInput))}\n`;
    const line = `${JSON.stringify(entryOf(batch, 'sending'))}\n`;
    await writeFile(path, `${header}${line}{"batch":1,"sta`);
    const writer = JournalWriter.reopen(path);
    await writer.append(entryOf(batch, 'accepted', { status: 200 }));
    await writer.close();
    const text = await readFile(path, 'utf8');
    expect(text.startsWith(header + line)).toBe(true);
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { state?: string }).state),
    ).toEqual([undefined, 'sending', 'accepted']);
  });
});

/** The batches of `list` a resumed run would send, given the journal's entries. */
async function plan(list: Batch[], entries: JournalEntry[]): Promise<{ due: number[]; tally: PushTally }> {
  async function* events(): AsyncGenerator<BatchEvent> {
    for (const batch of list) yield { kind: 'batch', batch };
  }
  const tally = new PushTally();
  const due: number[] = [];
  for await (const batch of dueBatches(events(), { tally, index: new JournalIndex(entries), uncertain: {}, maxBytes: 1000 })) {
    due.push(batch.number);
  }
  return { due, tally };
}

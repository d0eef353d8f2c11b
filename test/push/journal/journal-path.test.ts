import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryLock } from '../../../src/core/process-lock.js';
import { entryOf, journalHeader } from '../../../src/push/journal/journal-format.js';
import { defaultJournalPath, journalFolder, prepareJournalFolder, removeCompleted } from '../../../src/push/journal/journal-folder.js';
import { JOURNAL_KEEP_DAYS } from '../../../src/push/options.js';
import { journalCompleted, JournalWriter } from '../../../src/push/journal/journal-writer.js';
import { readJournal } from '../../../src/push/journal/prior-journal.js';
import { makeBatch } from '../../../src/push/plan/batch.js';

const MINE = `0123abcd${'e'.repeat(56)}`;
const OTHER = `0123abcd${'f'.repeat(56)}`; // the same first 8 hex digits, another webhook
const DAY = 86_400_000;

let dir: string;
let input: string;
let data: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-journal-path-'));
  input = join(dir, 'people.csv');
  data = join(dir, 'data');
  await writeFile(input, 'email\na@x.io\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A journal of one batch sent to the webhook `fingerprint`, at `path`. */
async function journalAt(path: string, fingerprint = MINE): Promise<string> {
  const writer = JournalWriter.create(
    path,
    journalHeader({
      path: input,
      format: 'csv',
      batchSize: 500,
      maxBytes: 1_000_000,
      infer: false,
      relaxColumns: false,
      target: { displayUrl: 'https://hook.example/…abcd', fingerprint },
    }),
  );
  const batch = makeBatch(1, '', [{ record: 1, json: '{"email":"a@x.io"}', bytes: 18 }]);
  await writer.append(entryOf(batch, 'sending'));
  await writer.append(entryOf(batch, 'accepted'));
  await writer.close();
  return path;
}

describe('defaultJournalPath', () => {
  it("is in the data folder's journals/, named after the input and a hash of its absolute path and the webhook", async () => {
    const place = await defaultJournalPath(input, MINE, data);
    expect(place.beside).toBe(false);
    expect(place.path).toMatch(new RegExp(`^${journalFolder(data)}/people\\.csv\\.[0-9a-f]{16}\\.tds-journal$`));
    expect((await defaultJournalPath(input, OTHER, data)).path).not.toBe(place.path);
    // the same file by another path to it: the same journal
    const fromDir = join(dir, 'sub');
    await mkdir(fromDir);
    expect((await defaultJournalPath(join(fromDir, '..', 'people.csv'), MINE, data)).path).toBe(place.path);
  });

  it('finds the journal an earlier release kept beside the input, of the same webhook (the upgrade path)', async () => {
    const besideOwn = await journalAt(`${input}.0123abcd.tds-journal`);
    expect(await defaultJournalPath(input, MINE, data)).toEqual({ path: besideOwn, beside: true });
  });

  it("finds the first release's journal (FILE.tds-journal) of the same webhook, not of another", async () => {
    const legacy = await journalAt(`${input}.tds-journal`);
    expect(await defaultJournalPath(input, MINE, data)).toEqual({ path: legacy, beside: true });
    expect((await defaultJournalPath(input, `ffffffff${'0'.repeat(56)}`, data)).beside).toBe(false);
  });

  it("prefers the data folder's journal when both exist", async () => {
    const own = (await defaultJournalPath(input, MINE, data)).path;
    await journalAt(`${input}.0123abcd.tds-journal`);
    await mkdir(journalFolder(data), { recursive: true });
    await journalAt(own);
    expect(await defaultJournalPath(input, MINE, data)).toEqual({ path: own, beside: false });
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'garbage\n'],
    ['a header without a webhook', '{"journal":"tds push","version":1}\n'],
    ['a fingerprint that is not text', '{"webhook":{"sha256":12}}\n'],
  ])('does not use a first-release journal that is %s', async (_name, content) => {
    await writeFile(`${input}.tds-journal`, content);
    expect((await defaultJournalPath(input, MINE, data)).beside).toBe(false);
  });
});

describe('journals of completed pushes', () => {
  /** A journal in the data folder, its last write `days` ago; complete or not. */
  async function aged(name: string, days: number, complete: boolean): Promise<string> {
    await mkdir(journalFolder(data), { recursive: true, mode: 0o700 });
    const path = await journalAt(join(journalFolder(data), name));
    if (complete) await journalCompleted(path);
    const then = new Date(Date.now() - days * DAY);
    await utimes(path, then, then);
    return path;
  }

  it('a completed push appends one completion line; the journal reads as before, and complete', async () => {
    const path = await journalAt(join(dir, 'j.tds-journal'));
    expect((await readJournal(path)).complete).toBe(false);
    await journalCompleted(path);
    await journalCompleted(path);
    const contents = await readJournal(path);
    expect(contents.complete).toBe(true);
    expect(contents.entries.map((entry) => entry.state)).toEqual(['sending', 'accepted']);
    // a later run that continues it appends after the completion line: no longer complete
    const writer = JournalWriter.reopen(path);
    await writer.append(entryOf(makeBatch(2, '', [{ record: 2, json: '{}', bytes: 2 }]), 'sending'));
    await writer.close();
    expect(await readJournal(path)).toMatchObject({ complete: false });
    expect((await readJournal(path)).entries).toHaveLength(3);
  });

  it(`removes a completed one untouched for more than ${JOURNAL_KEEP_DAYS} days, never an incomplete one, nor a recent one`, async () => {
    const old = await aged('old.csv.1.tds-journal', JOURNAL_KEEP_DAYS + 1, true);
    const incomplete = await aged('incomplete.csv.2.tds-journal', 30, false);
    const recent = await aged('recent.csv.3.tds-journal', JOURNAL_KEEP_DAYS - 1, true);
    await prepareJournalFolder(data);
    expect((await readdir(journalFolder(data))).sort()).toEqual(['incomplete.csv.2.tds-journal', 'recent.csv.3.tds-journal']);
    expect(old).not.toBe(incomplete);
    // a clock 2 days on: the recent one's time has come too
    expect(await removeCompleted(journalFolder(data), Date.now() + 2 * DAY)).toEqual([recent]);
    expect(await readdir(journalFolder(data))).toEqual(['incomplete.csv.2.tds-journal']);
  });

  it('leaves a completed journal that a push is using (its lock held)', async () => {
    const path = await aged('held.csv.4.tds-journal', JOURNAL_KEEP_DAYS + 1, true);
    const lock = await tryLock(path);
    try {
      expect(await removeCompleted(journalFolder(data))).toEqual([]);
    } finally {
      await lock?.release();
    }
    expect(await removeCompleted(journalFolder(data))).toEqual([path]);
  });

  it('makes the folder private (0700)', async () => {
    await prepareJournalFolder(data);
    expect((await stat(journalFolder(data))).mode & 0o777).toBe(0o700);
  });
});

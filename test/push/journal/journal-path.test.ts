import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entryOf, journalHeader } from '../../../src/push/journal/journal-format.js';
import { defaultJournalPath } from '../../../src/push/journal/prior-journal.js';
import { JournalWriter } from '../../../src/push/journal/journal-writer.js';
import { makeBatch } from '../../../src/push/plan/batch.js';

const MINE = `0123abcd${'e'.repeat(56)}`;
const OTHER = `0123abcd${'f'.repeat(56)}`; // the same first 8 hex digits, another webhook

let dir: string;
let input: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-journal-path-'));
  input = join(dir, 'people.csv');
  await writeFile(input, 'email\na@x.io\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A journal as the first release wrote it beside the input (FILE.tds-journal), of the webhook `fingerprint`. */
async function legacyJournal(fingerprint: string): Promise<string> {
  const path = `${input}.tds-journal`;
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
  await writer.append(entryOf(makeBatch(1, '', [{ record: 1, json: '{"email":"a@x.io"}', bytes: 18 }]), 'sending'));
  await writer.close();
  return path;
}

describe('defaultJournalPath', () => {
  it('names a new journal after the input and 8 hex digits of the webhook fingerprint', async () => {
    expect(await defaultJournalPath(input, MINE)).toBe(`${input}.0123abcd.tds-journal`);
    expect(await defaultJournalPath(input, `ffffffff${'0'.repeat(56)}`)).toBe(`${input}.ffffffff.tds-journal`);
  });

  it('uses a journal of the first release (FILE.tds-journal) of the same webhook', async () => {
    const legacy = await legacyJournal(MINE);
    expect(await defaultJournalPath(input, MINE)).toBe(legacy);
  });

  it('does not use a journal of the first release of another webhook', async () => {
    await legacyJournal(OTHER);
    expect(await defaultJournalPath(input, MINE)).toBe(`${input}.0123abcd.tds-journal`);
  });

  it('prefers the journal named after the webhook when both exist', async () => {
    await legacyJournal(MINE);
    const own = `${input}.0123abcd.tds-journal`;
    await writeFile(own, '');
    expect(await defaultJournalPath(input, MINE)).toBe(own);
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'garbage\n'],
    ['a header without a webhook', '{"journal":"tds push","version":1}\n'],
    ['a fingerprint that is not text', '{"webhook":{"sha256":12}}\n'],
  ])('does not use an old journal that is %s', async (_name, content) => {
    await writeFile(`${input}.tds-journal`, content);
    expect(await defaultJournalPath(input, MINE)).toBe(`${input}.0123abcd.tds-journal`);
  });

  it('reads only the header line of an old journal', async () => {
    await writeFile(`${input}.tds-journal`, `${JSON.stringify({ webhook: { sha256: MINE } })}\n{"not":"json"\n`);
    expect(await defaultJournalPath(input, MINE)).toBe(`${input}.tds-journal`);
  });
});

import { createHash } from 'node:crypto';
import { access, mkdir, readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { JOURNAL_KEEP_DAYS } from '../../src/push/options.js';
import { expectSameRecords, journalOf, ndjson, people, tablePayloads } from '../push/helpers/emulator.js';
import { pushTest } from './push-support.js';

// Where a push's journal is (issue 44 item 7): in tds's data folder by default (the harness's TDS_DATA_DIR),
// said when it is kept; --journal FILE where asked; one an earlier release left beside the input still
// resumed; a completed push's removed once untouched for JOURNAL_KEEP_DAYS, an incomplete one's never.
// The webhook's first POST of each harness answers 500 after storing (request 1 is the push's HEAD check).

const DAY = 86_400_000;
const KEPT = '(kept: the same command with --resume goes on from it)';
const journalLine = (stderr: string): string => /\n {2}journal {9}(.*)\n/.exec(stderr)?.[1] ?? '';
const dataJournals = (dir: string): Promise<string[]> => readdir(join(dir, 'data', 'journals')).catch(() => []);

describe("a push's journal", () => {
  pushTest(
    'is kept in the data folder when the push stops, said where, and --resume finds it from another folder',
    async ({ openHarness }) => {
      const harness = await openHarness({ webhookFaults: '500@2' });
      const records = people(20);
      const path = await harness.file('people.ndjson', ndjson(records));
      const push = ['push', harness.inbox.url, '--batch-size', '5', '--concurrency', '1'];
      const first = await harness.tds([...push, path]);
      expect(first.code, first.stderr).toBe(7);
      const journal = await journalOf(path);
      expect(journal).toBeDefined();
      expect(journalLine(first.stderr)).toBe(`${journal} ${KEPT}`);
      expect((await readdir(harness.dir)).filter((name) => name.endsWith('.tds-journal'))).toEqual([]);
      // the same file by another path, from another working folder; --json: where it is kept said on stderr
      const elsewhere = join(harness.dir, 'elsewhere');
      await mkdir(elsewhere);
      const relative = join('..', 'people.ndjson');
      const still = await harness.tds([...push, relative, '--resume', '--json'], { cwd: elsewhere });
      expect(still.code, still.stderr).toBe(7);
      expect(JSON.parse(still.stdout)).toMatchObject({ resumed: true, journal });
      expect(still.stderr).toContain(`journal: ${journal} ${KEPT}\n`);
      const done = await harness.tds([...push, relative, '--resume', '--accept-uncertain'], { cwd: elsewhere });
      expect(done.code, done.stderr).toBe(0);
      expect(journalLine(done.stderr)).toBe(`${journal} (complete: removed once untouched for ${JOURNAL_KEEP_DAYS} days)`);
      expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
    },
  );

  pushTest('--journal FILE is where the journal goes, and nothing goes to the data folder', async ({ pushHarness: harness }) => {
    const path = await harness.file('people.ndjson', ndjson(people(3)));
    const result = await harness.tds(['push', harness.inbox.url, path, '--journal', 'mine.journal']);
    expect(result.code, result.stderr).toBe(0);
    expect(journalLine(result.stderr)).toBe('mine.journal');
    await access(join(harness.dir, 'mine.journal'));
    expect(await dataJournals(harness.dir)).toEqual([]);
  });

  pushTest('one an earlier release kept beside the input is resumed there, and said', async ({ openHarness }) => {
    const harness = await openHarness({ webhookFaults: '500@2' });
    const records = people(10);
    const path = await harness.file('people.ndjson', ndjson(records));
    const fingerprint = createHash('sha256').update(new URL(harness.inbox.url).href).digest('hex');
    const beside = `${path}.${fingerprint.slice(0, 8)}.tds-journal`;
    const push = ['push', harness.inbox.url, path, '--batch-size', '5', '--concurrency', '1'];
    expect((await harness.tds([...push, '--journal', beside])).code).toBe(7);
    const resumed = await harness.tds([...push, '--resume', '--accept-uncertain']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `using the journal of an earlier push beside the input, where earlier releases kept journals: ${beside} (new pushes keep theirs in ${join(harness.dir, 'data', 'journals')})\n`,
    );
    expect(journalLine(resumed.stderr)).toBe(beside);
    await access(beside);
    expect(await journalOf(path)).toBeUndefined();
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });

  pushTest(`of a completed push goes once untouched for ${JOURNAL_KEEP_DAYS} days; of an incomplete one never`, async ({ openHarness }) => {
    const harness = await openHarness({ webhookFaults: '500@2' });
    const push = async (name: string): Promise<{ code: number | null; journal: string }> => {
      const path = await harness.file(name, ndjson(people(5)));
      const result = await harness.tds(['push', harness.inbox.url, path]);
      return { code: result.code, journal: (await journalOf(path))! };
    };
    const incomplete = await push('stopped.ndjson');
    const complete = await push('done.ndjson');
    expect([incomplete.code, complete.code]).toEqual([7, 0]);
    const longAgo = new Date(Date.now() - (JOURNAL_KEEP_DAYS + 1) * DAY);
    for (const { journal } of [incomplete, complete]) await utimes(journal, longAgo, longAgo);
    const next = await push('next.ndjson');
    expect(next.code).toBe(0);
    const left = await dataJournals(harness.dir);
    expect(left.sort()).toEqual([incomplete.journal, next.journal].map((path) => path.split('/').pop()).sort());
  });
});

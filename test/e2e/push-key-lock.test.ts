import { readFile, rm } from 'node:fs/promises';
import { expect } from 'vitest';
import { notePath } from '../../src/push/key/table-lock.js';
import { ndjson, people, webhookPosts, type PushHarness } from '../push/helpers/emulator.js';
import { waitUntil } from './export-support.js';
import {
  columnValues,
  expectEachOnce,
  KEY_EMULATOR,
  SLOW_INTAKE_SCALE,
  killAfterPosts,
  otherWriter,
  startTds,
  keyedPush,
} from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// Issue 20, item 3: two pushes by key into one table at once would each look the other's keys up before
// they show, and send the overlap twice. On one machine the second waits for the first (a lock named
// after the service and the table, which dies with its process), and says which push holds the table.

const emails = (from: number, to: number): string[] => people(to - from + 1, from).map((person) => String(person.email));

/** The note the push holding the table (or the last one) leaves for the next, as JSON. */
async function noteOf(harness: PushHarness): Promise<{ pid?: number; state?: string }> {
  const text = await readFile(notePath(harness.emu.baseUrl, harness.inbox.id), 'utf8').catch(() => '{}');
  return JSON.parse(text) as { pid?: number; state?: string };
}

const tableReads = (harness: PushHarness): number =>
  harness.emu.requestLog.filter((entry) => entry.method === 'GET' && entry.path === '/v1/tables').length;

const clearNote = (harness: PushHarness): Promise<void> => rm(notePath(harness.emu.baseUrl, harness.inbox.id), { force: true });

interface Summary {
  records: { sent: number };
  key: { existing: number };
}

test('(issue 20) a second push by key into the same table waits for the first, names it, then skips the keys it sent', async ({
  openHarness,
}) => {
  const harness = await openHarness(KEY_EMULATOR);
  try {
    // the first push reads stdin: it holds the table from before it reads until its rows show
    const first = startTds(harness, keyedPush(harness, '-', '--input-format', 'ndjson', '--journal', 'a.journal'));
    // its second table read is the row count before its first request: it holds the table then, waiting for stdin
    await waitUntil(() => tableReads(harness) >= 2, 15_000, 'the first push to hold the table');
    // records 201–500: 201–300 overlap the first push's 1–300
    const path = await harness.file('b.ndjson', ndjson(people(300, 201)));
    const second = startTds(harness, keyedPush(harness, path, '--skip-existing', '--json'));
    const waiting =
      /another push by key into table "Inbox" \(\w+\) is running: PID (\d+), pushing stdin since \d\d:\d\d:\d\d; waiting for it to end/;
    await waitUntil(() => waiting.test(second.stderr()) || second.child.exitCode !== null, 15_000, 'the second push to wait');
    first.child.stdin?.end(ndjson(people(300)));
    expect(await first.exit, first.stderr()).toBe(0);
    expect(await second.exit, second.stderr()).toBe(0);
    expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(1, 500));
    expect(second.stderr().match(waiting)?.[1]).toBe(String(first.pid));
    const summary = JSON.parse(second.stdout()) as Summary;
    expect(summary.key.existing).toBe(100);
    expect(summary.records.sent).toBe(200);
    // the second push sent only after the first was done
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([300, 200]);
    // every row showed: no note left for a next push to wait on
    expect(await noteOf(harness)).toEqual({});
  } finally {
    await clearNote(harness);
  }
});

test('(issue 20) after a push by key killed before its rows showed, the next one waits out the intake window, then skips its keys', async ({
  openHarness,
}) => {
  // a slower scale (SLOW_INTAKE_SCALE) so the next push is up while the killed one's rows are still coming in
  const harness = await openHarness({ ...KEY_EMULATOR, rateScale: SLOW_INTAKE_SCALE });
  try {
    const a = await harness.file('a.ndjson', ndjson(people(300)));
    // another client keeps the intake open, so the killed push's rows show only at the end of the window
    const other = otherWriter(harness.inbox.url, {
      everyMs: 1500 / SLOW_INTAKE_SCALE,
      max: 1000,
      begin: () => webhookPosts(harness.emu).length > 0,
    });
    expect(await killAfterPosts(harness, keyedPush(harness, a), 1)).toBe('killed after 1 posts');
    const b = await harness.file('b.ndjson', ndjson(people(300, 201)));
    const result = await harness.tds(keyedPush(harness, b, '--skip-existing', '--json'), {});
    await other.stop();
    expect(result.code, result.stderr).toBe(0);
    expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(1, 500));
    expect(result.stderr).toMatch(
      /the last push by key into table "Inbox" \(\w+\) \(PID \d+, .*a\.ndjson\) ended before its rows showed; waiting \d+ s/,
    );
    expect((JSON.parse(result.stdout) as Summary).key.existing).toBe(100);
  } finally {
    await clearNote(harness);
  }
});

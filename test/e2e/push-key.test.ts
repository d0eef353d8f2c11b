import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { journalOf, ndjson, people, webhookPosts } from '../push/helpers/emulator.js';
import { columnValues, expectEachOnce, KEY_EMULATOR, keyTest, killAfterPosts, seeded, keyedPush } from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// Push by key (docs/cli.md "Push by key"), end to end against the emulator: each record's row exactly once
// whatever fails on the way, and the run ends with exit 0 without a human deciding anything.

const emails = (n: number, from = 1): string[] => people(n, from).map((person) => String(person.email));

describe('uncertain batches are reconciled by key', () => {
  test('a 500 after storing, a 500 before storing, resets before and after, a stall and a 502: exit 0, each record once', async ({
    openHarness,
  }) => {
    const faults = '500@3,500pre@6,reset@9,resetpre@12,stall@15,502@18';
    const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: faults });
    try {
      const path = await harness.file('leads.ndjson', ndjson(people(150)));
      const args = keyedPush(harness, path, '--batch-size', '5', '--concurrency', '2');
      const result = await harness.tds(['--timeout', '1', ...args, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { records: { uncertain: number }; key: { reconciled: number; settled: number } };
      expect(summary.records.uncertain).toBe(0);
      // the 500, the 502, the reset and the stall came after storing: their records were found, not sent again
      expect(summary.key.reconciled).toBe(20);
      // the name of earlier releases, kept for their scripts
      expect(summary.key.settled).toBe(20);
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(150));
      const faulted = harness.emu.requestLog.filter((entry) => entry.fault !== undefined).map((entry) => entry.fault);
      expect(faulted).toEqual(['500', '500pre', 'reset', 'resetpre', 'stall', '502']);
    } finally {
      await harness.close();
    }
  });

  test('SIGKILL at random points, then --resume until done: each record once, the last run exits 0', async ({ openHarness }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500:0.04,500pre:0.04', faultSeed: 3 });
    try {
      const path = await harness.file('leads.ndjson', ndjson(people(300)));
      // four in flight at most: a kill after 1–12 posts lands mid-run
      const push = keyedPush(harness, path, '--batch-size', '5', '--concurrency', '4');
      const random = seeded(Number(process.env.KILL_SEED ?? 11));
      const runs: string[] = [];
      for (let kill = 0; kill < 4; kill += 1) {
        const resume = (await journalOf(path)) !== undefined ? ['--resume'] : [];
        const ended = await killAfterPosts(harness, [...push, ...resume], 1 + Math.floor(random() * 12));
        runs.push(`${resume.length ? 'resume' : 'first run'}: ${ended}`);
        expect(ended, runs.join('\n')).toMatch(/^(killed|exit 0$)/);
      }
      const last = await harness.tds([...push, '--resume']);
      expect(last.code, `${runs.join('\n')}\n${last.stderr}`).toBe(0);
      expect(runs.filter((run) => run.includes('killed')).length, runs.join('\n')).toBeGreaterThanOrEqual(3);
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(300));
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('a push by key run again', () => {
  keyTest(
    'killed, then run again without --resume on an input that changed: settled by its keys, each record once',
    async ({ pushHarness: harness }) => {
      const path = await harness.file('leads.ndjson', ndjson(people(60)));
      const push = keyedPush(harness, path, '--batch-size', '5');
      expect(await killAfterPosts(harness, push, 4)).toMatch(/^killed/);
      const before = (await columnValues(harness.emu, harness.inbox.id, 'Email')).length;
      // a record in front shifts every batch; two at the end are new
      await harness.file('leads.ndjson', ndjson([...people(1, 100), ...people(60), ...people(2, 61)]));
      const again = await harness.tds([...push, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), [...emails(1, 100), ...emails(62)]);
      const summary = JSON.parse(again.stdout) as { records: { sent: number } };
      expect(before).toBeGreaterThan(0);
      expect(summary.records.sent).toBe(63 - before);
    },
  );
});

describe('keys in the input', () => {
  const input = [
    { email: 'Ada@Example.com', n: 1 },
    { email: 'ada@example.COM', n: 2 },
    { email: 'grace@example.com', n: 3 },
    { email: 'ADA@example.com', n: 4 },
    { n: 5 },
    { email: `${'x'.repeat(200)}@example.com`, n: 6 },
  ];

  keyTest(
    'a repeated key (ignoring case) is not sent and is listed with --verbose; missing and over-long keys are rejected (exit 7)',
    async ({ pushHarness: harness }) => {
      const path = await harness.file('dups.ndjson', ndjson(input));
      const result = await harness.tds(keyedPush(harness, path, '--rejects', 'bad.ndjson', '-v'));
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toMatch(/duplicates\s+2 \(same email: 2 repeats 1, 4 repeats 1\)/);
      expect(result.stderr).toContain(`record 2 not sent: its key "ada@example.COM" repeats record 1's`);
      expect(result.stderr).toMatch(/rejected\s+2: records 5–6/);
      const rejects = (await readFile(`${harness.dir}/bad.ndjson`, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { record: number; reason: string });
      expect(rejects.map((reject) => reject.record)).toEqual([5, 6]);
      expect(rejects[0]!.reason).toMatch(/no key: it has no "email"/);
      expect(rejects[1]!.reason).toMatch(/more than 200 characters/);
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), ['ada@example.com', 'grace@example.com']);
    },
  );

  keyTest('--on-duplicate error exits 2 naming the first pair, before anything is sent', async ({ pushHarness: harness }) => {
    const path = await harness.file('dups.ndjson', ndjson(input.slice(0, 4)));
    const result = await harness.tds(keyedPush(harness, path, '--on-duplicate', 'error'));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/records 1 and 2 have the same key "ada@example.COM"/);
    expect(webhookPosts(harness.emu)).toEqual([]);
  });

  keyTest('bad key options exit 2 with what to do', async ({ pushHarness: harness }) => {
    const path = await harness.file('a.ndjson', ndjson(people(2)));
    const cases: Array<[string[], RegExp]> = [
      [['--key', 'email'], /--key needs --table/],
      [['--skip-existing'], /--skip-existing needs --key/],
      [['--wait', 'settled', '--table', 'Inbox'], /--wait settled needs --key/],
      [['--key', 'email', '--table', 'Inbox', '-o', 'out.csv'], /-o FILE writes the pushed rows once they have settled/],
      [['--key', 'email=Nope', '--table', 'Inbox'], /the table has no column "Nope"/],
      [['--key', 'email=Domain', '--table', 'Inbox'], /type action, which cannot hold a key/],
      [['--key', 'email', '--table', 'Inbox', '--wait', 'later'], /--wait later: wait until "visible" \(the default\) or "settled"/],
    ];
    for (const [extra, message] of cases) {
      const result = await harness.tds(['push', harness.inbox.url, path, ...extra]);
      expect(result.code, `${extra.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const unknown = await harness.tds(['push', harness.inbox.url, path, '--key', 'email', '--table', 'Nowhere']);
    expect(unknown.code, unknown.stderr).toBe(4);
    expect(webhookPosts(harness.emu)).toEqual([]);
  });
});

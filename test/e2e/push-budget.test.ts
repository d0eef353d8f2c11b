import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { expectSameRecords, journalOf, ndjson, people, tablePayloads, webhookPosts } from '../push/helpers/emulator.js';
import { harnessWithLimits, pushTest as it } from './push-support.js';

// Issue 45: a webhook takes a budget of submissions in its lifetime (50,000 in production) and then drops
// what it is sent while still answering success. tds counts each webhook's submissions in its ledger and
// stops a push before the first record past the budget; the same command with --webhook NEW --resume goes on.

describe('tds push: the webhook budget', () => {
  it('stops at the budget with exit 7 and what to do; --webhook NEW --resume sends the rest, nothing twice', async ({ openHarness }) => {
    const harness = await harnessWithLimits(openHarness, { webhookBudget: 500 });
    const records = people(600);
    const path = await harness.file('p.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--batch-size', '200'];

    const dry = await harness.tds([...args, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(7);
    expect(dry.stderr).toMatch(
      /has 500 of its 500 submissions left \(webhook-budget\): this push would send 600, so it would stop after 500/,
    );
    expect(webhookPosts(harness.emu)).toHaveLength(0);

    const first = await harness.tds(args);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/webhook budget +500 of 500 submissions used, 0 left \(webhook-budget\)/);
    expect(first.stderr).toMatch(/has used its budget of 500 submissions \(webhook-budget\): 500 records sent, 100 records left to send/);
    expect(first.stderr).toMatch(/create a new webhook on the table, then run the same command with --webhook NEW --resume/);
    // batches 1 and 2 whole, batch 3 cut after its 100th record: nothing past the budget was sent
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([200, 200, 100]);
    const counts = await harness.admin<{ webhooks: Array<{ submissions: number; dropped: number }> }>(
      'GET',
      `/tables/${harness.inbox.id}/webhooks`,
    );
    expect(counts.webhooks[0]).toMatchObject({ submissions: 500, dropped: 0 });

    const listed = await harness.tds(['webhooks', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ submissions: 500, uncertain: 0, budget: 500, left: 0 }]);

    const { webhookUrl } = await harness.admin<{ webhookUrl: string }>('POST', `/tables/${harness.inbox.id}/webhooks`);
    const second = await harness.tds([...args, '--webhook', webhookUrl, '--resume', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).records).toMatchObject({ sent: 100, alreadySent: 500, notSent: 0 });
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);

    const again = await harness.tds([...args, '--webhook', webhookUrl, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing to send');
  });
});

describe('tds push @NAME: a saved list of webhooks, filled in order', () => {
  it('goes on with the next webhook once the first has used its budget: each records which batches it took, nothing twice', async ({
    openHarness,
  }) => {
    const harness = await harnessWithLimits(openHarness, { webhookBudget: 500 });
    const { webhookUrl: second } = await harness.admin<{ webhookUrl: string }>('POST', `/tables/${harness.inbox.id}/webhooks`);
    const saved = await harness.tds(['config', 'set', 'webhook.inbox'], { input: `${harness.inbox.url}, ${second}\n` });
    expect(saved.code, saved.stderr).toBe(0);
    const listed = await harness.tds(['config', 'get', 'webhook.inbox']);
    expect(listed.stdout.trim().split(', ')).toHaveLength(2);

    const records = people(600);
    const path = await harness.file('p.ndjson', ndjson(records));
    const args = ['push', '@inbox', path, '--batch-size', '200'];
    expect((await harness.tds([...args, '--dry-run'])).code).toBe(0);
    const result = await harness.tds([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/webhook 1 of 2 \(\S+\) has used its budget of 500 submissions: going on with webhook 2/);
    expect(JSON.parse(result.stdout)).toMatchObject({
      records: { sent: 600, notSent: 0 },
      budget: { budget: 1000, used: 600, left: 400, webhooks: 2 },
    });
    // batch 3 cut where the first webhook's budget ran out, its rest to the second: nothing past a budget, nothing twice
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([200, 200, 100, 100]);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
    const counts = await harness.admin<{ webhooks: Array<{ submissions: number; dropped: number }> }>(
      'GET',
      `/tables/${harness.inbox.id}/webhooks`,
    );
    expect(counts.webhooks.map((webhook) => webhook.submissions)).toEqual([500, 100]);

    // the journal says which webhook took which batch: the second's lines carry its hash's first 16 digits
    const tag = createHash('sha256').update(new URL(second).href).digest('hex').slice(0, 16);
    const lines = (await readFile((await journalOf(path))!, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { batch?: number; part?: string; state?: string; webhook?: string });
    const sending = lines
      .filter((line) => line.state === 'sending')
      .map((line) => `${line.batch}${line.part ? `.${line.part}` : ''} ${line.webhook ?? 'first'}`);
    expect(sending).toEqual(['1 first', '2 first', '3.1 first', `3.2 ${tag}`]);

    const ledgers = await harness.tds(['webhooks', '--json']);
    const known = JSON.parse(ledgers.stdout) as Array<{ name: string | null; submissions: number; left: number }>;
    expect(known.map(({ name, submissions, left }) => ({ name, submissions, left }))).toEqual([
      { name: '@inbox 1/2', submissions: 500, left: 0 },
      { name: '@inbox 2/2', submissions: 100, left: 400 },
    ]);
    expect(ledgers.stdout).not.toContain(second);

    const again = await harness.tds([...args, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(webhookPosts(harness.emu)).toHaveLength(4);
  });

  it('stops with exit 7 only when the whole list is spent', async ({ openHarness }) => {
    const harness = await harnessWithLimits(openHarness, { webhookBudget: 100 });
    const { webhookUrl: second } = await harness.admin<{ webhookUrl: string }>('POST', `/tables/${harness.inbox.id}/webhooks`);
    expect((await harness.tds(['config', 'set', 'webhook.inbox'], { input: `${harness.inbox.url}\n` })).code).toBe(0);
    expect((await harness.tds(['config', 'set', 'webhook.inbox', '--add'], { input: `${second}\n` })).code).toBe(0);
    const path = await harness.file('p.ndjson', ndjson(people(250)));
    const result = await harness.tds(['push', '@inbox', path, '--batch-size', '50']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(
      /the 2 webhooks of the list have used their budgets of 100 submissions each \(webhook-budget\): 200 records sent, 50 records left to send/,
    );
    expect(result.stderr).toMatch(/webhook budget +200 of 200 submissions of 2 webhooks used, 0 left/);
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([50, 50, 50, 50]);
  });
});

describe('tds push --wait: rows the service dropped', () => {
  it('names the records a table at its row ceiling dropped, writes them to --rejects and exits 7, warning before it sends', async ({
    openHarness,
  }) => {
    const harness = await harnessWithLimits(openHarness, { tableCapacity: 300 });
    const path = await harness.file('p.ndjson', ndjson(people(400)));
    const rejects = `${harness.dir}/rejects.ndjson`;
    const args = ['push', harness.inbox.url, path, '--batch-size', '100', '--concurrency', '1', '--table', 'Inbox', '--wait'];
    const result = await harness.tds([...args, '--validate-first', '--rejects', rejects]);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toContain(
      'table "Inbox" holds 0 rows of its ceiling of 300 (table-capacity): 300 records of the 400 to send fit',
    );
    expect(result.stderr).toMatch(/dropped +100 by the service: records 301–400/);
    expect(result.stderr).toMatch(
      /100 records were accepted and never shown: dropped by the service \(records 301–400\); likely cause: the table holds 300 rows, its row ceiling \(table-capacity 300\)/,
    );
    const lines = (await readFile(rejects, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.record)).toEqual(Array.from({ length: 100 }, (_, i) => 301 + i));
    expect(lines[0].reason).toMatch(/^dropped by the service/);
  });
});

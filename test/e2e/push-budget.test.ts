import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { expectSameRecords, ndjson, people, tablePayloads, webhookPosts } from '../push/helpers/emulator.js';
import { pushTest as it } from './push-support.js';

// Issue 45: a webhook takes a budget of submissions in its lifetime (50,000 in production) and then drops
// what it is sent while still answering success. tds counts each webhook's submissions in its ledger and
// stops a push before the first record past the budget; the same command with --webhook NEW --resume goes on.

describe('tds push: the webhook budget', () => {
  it('stops at the budget with exit 7 and what to do; --webhook NEW --resume sends the rest, nothing twice', async ({ openHarness }) => {
    const harness = await openHarness({ webhookBudget: 500 });
    expect((await harness.tds(['config', 'set', 'webhook-budget', '500'])).code).toBe(0);
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

describe('tds push --wait: rows the service dropped', () => {
  it('names the records a table at its row ceiling dropped, writes them to --rejects and exits 7, warning before it sends', async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tableCapacity: 300 });
    expect((await harness.tds(['config', 'set', 'table-capacity', '300'])).code).toBe(0);
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

import { describe, expect } from 'vitest';
import { ndjson, people, webhookPosts } from '../push/helpers/emulator.js';
import { waitUntil } from './export-support.js';
import { KEY_EMULATOR, webhookTable } from './push-key-support.js';
import { pushTest as it } from './push-support.js';

// Issue 45: the webhook ledger counts exactly across a SIGKILL: a request in flight at the kill counts as
// uncertain (used) until a push by key finds its records in the table, then as the submissions it was.

interface Listed {
  submissions: number;
  uncertain: number;
  left: number;
}

describe('the webhook ledger across a kill', () => {
  it('counts the request in flight at SIGKILL as uncertain, and as submissions once the next push by key settles it', async ({
    openHarness,
  }) => {
    // POST 3 is taken in and never answered: the push is killed while it is in flight
    const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: 'stall@4', webhookBudget: 1000 });
    const leads = await webhookTable(harness, 'Ledger leads', [{ label: 'Email', type: 'email', mapKey: 'email' }]);
    const path = await harness.file('p.ndjson', ndjson(people(50)));
    const args = ['push', leads.url, path, '--key', 'email=Email', '--table', 'Ledger leads', '--batch-size', '10', '--concurrency', '1'];
    const killed = harness.spawn(args);
    await waitUntil(() => webhookPosts(harness.emu).length >= 3, 20_000, 'the third request at the webhook').catch((error: unknown) => {
      throw new Error(`${String(error)}: ${killed.stderr()}`);
    });
    killed.child.kill('SIGKILL');
    expect((await killed.ended).signal).toBe('SIGKILL');

    const listed = async (): Promise<Listed> => {
      const result = await harness.tds(['webhooks', '--json']);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as Listed[])[0]!;
    };
    expect(await listed()).toMatchObject({ submissions: 20, uncertain: 10, left: 50_000 - 30 });

    const again = await harness.tds(args);
    expect(again.code, again.stderr).toBe(0);
    expect(await listed()).toMatchObject({ submissions: 50, uncertain: 0 });
    const counted = await harness.admin<{ webhooks: Array<{ submissions: number }> }>('GET', `/tables/${leads.id}/webhooks`);
    expect(counted.webhooks[0]!.submissions).toBe(50);
  });
});

import { describe, expect } from 'vitest';
import { ndjson, people } from '../push/helpers/emulator.js';
import { keyTest } from './push-key-support.js';

// What a push's summary says, line by line (issue 44 item 7): the words tell what happened, nothing more.

describe("the summary's words", () => {
  keyTest('a push of one batch: one request in flight, and how many were allowed, said as such', async ({ pushHarness: harness }) => {
    const path = await harness.file('one.ndjson', ndjson(people(3)));
    const result = await harness.tds(['push', harness.inbox.url, path]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\n {2}network {9}round trip \d+ ms, 1 request in flight at a time \(\d+ allowed\)\n/);
    const json = await harness.tds(['push', harness.signups.url, path, '--json']);
    const summary = JSON.parse(json.stdout) as { network: { inFlight: number; allowed: number } };
    expect(summary.network.inFlight).toBe(1);
    expect(summary.network.allowed).toBeGreaterThanOrEqual(1);
  });

  keyTest(
    'a grown file pushed by key: the records of the earlier run are said to be from it, not uncertain',
    async ({ pushHarness: harness }) => {
      const push = (path: string): string[] => ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--batch-size', '5'];
      const path = await harness.file('leads.ndjson', ndjson(people(3)));
      const first = await harness.tds(push(path));
      expect(first.code, first.stderr).toBe(0);
      // the file grows: its first batch now holds the 3 records sent and 2 new ones
      await harness.file('leads.ndjson', ndjson(people(7)));
      const grown = await harness.tds(push(path));
      expect(grown.code, grown.stderr).toBe(0);
      expect(grown.stderr).toContain('\n  sent before     3 records already in the table from an earlier run, not sent again\n');
      expect(grown.stderr).not.toMatch(/uncertain requests|reconcil/);
      expect(grown.stderr).toMatch(/\n {2}key lookups {5}\d+ row requests? \((\d+ [a-z ]+, )?\d+ finding records sent before\)\n/);
      expect(grown.stderr).toMatch(/\n {2}sent {12}4 in /);
      const again = await harness.tds([...push(path), '--json']);
      const summary = JSON.parse(again.stdout) as { key: { reconciled: number; earlierRuns: number } };
      expect(summary.key).toMatchObject({ reconciled: 0, earlierRuns: 3 });
    },
  );
});

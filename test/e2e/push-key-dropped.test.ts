import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { ndjson, people } from '../push/helpers/emulator.js';
import { KEY_EMULATOR } from './push-key-support.js';
import { harnessWithLimits, pushTest as test } from './push-support.js';

// Issue 45: push by key names the records the service dropped (taken in with a 2xx, never shown) from its key
// lookups once the intake window has passed, as plain --wait does from the row count (push-budget.test.ts).

describe('tds push --key: rows the service dropped', () => {
  test('a table at its row ceiling: the records past it by number, in --rejects, exit 7, the likely cause; warned before', async ({
    openHarness,
  }) => {
    const harness = await harnessWithLimits(openHarness, { tableCapacity: 30 }, KEY_EMULATOR);
    const path = await harness.file('p.ndjson', ndjson(people(40)));
    const rejects = `${harness.dir}/rejects.ndjson`;
    const args = ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--batch-size', '10', '--concurrency', '1'];
    const result = await harness.tds([...args, '--validate-first', '--rejects', rejects, '--json']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toContain('table "Inbox" holds 0 rows of its ceiling of 30 (table-capacity): 30 records of the 40 to send fit');
    expect(result.stderr).toMatch(
      /10 records were accepted and never shown: dropped by the service \(records 31–40\); likely cause: the table holds 30 rows, its row ceiling \(table-capacity 30\)/,
    );
    expect(result.stderr).not.toContain('does not show the keys');
    expect(JSON.parse(result.stdout).dropped).toMatchObject({ count: 10, records: [{ first: 31, last: 40 }] });
    const lines = (await readFile(rejects, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { record: number; reason: string });
    expect(lines.map((line) => line.record)).toEqual(Array.from({ length: 10 }, (_, i) => 31 + i));
    expect(lines[0]!.reason).toMatch(/^dropped by the service/);
  });

  test('a webhook past a budget tds was not told of: the records past it by number, exit 7', async ({ openHarness }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, webhookBudget: 25 });
    const path = await harness.file('p.ndjson', ndjson(people(40)));
    const args = ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--batch-size', '10', '--concurrency', '1'];
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/dropped +15 by the service: records 26–40/);
    expect(result.stderr).toMatch(
      /15 records were accepted and never shown: dropped by the service \(records 26–40\); likely cause: a webhook past its budget/,
    );
  });

  test('a table near its ceiling is warned about before pushing, with how many records fit, though the push fits', async ({
    openHarness,
  }) => {
    const harness = await harnessWithLimits(openHarness, { tableCapacity: 50 }, KEY_EMULATOR);
    const first = await harness.file('a.ndjson', ndjson(people(45)));
    const push = (path: string) =>
      harness.tds(['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--batch-size', '50']);
    expect((await push(first)).code).toBe(0);
    const second = await harness.file('b.ndjson', ndjson(people(3, 46)));
    const result = await push(second);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('table "Inbox" holds 45 rows of its ceiling of 50 (table-capacity): 5 records fit');
  });
});

import { afterEach, describe, expect } from 'vitest';
import { ndjson, people, type PushHarness } from '../push/helpers/emulator.js';
import { pushTest as it } from './push-support.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// --wait --table: rowCount before the first POST, then polled (every 2 s / TDS_RATE_SCALE) until the
// pushed rows are visible or --wait-timeout passes.

/** The client's scale where it polls 2 s / 20 = 100 ms apart (a fifth of the suite's: why, where it is used). */
const POLL_SCALE = RATE_SCALE / 5;

let harness: PushHarness | undefined;
afterEach(async () => {
  harness = undefined;
});

describe('tds push --wait', () => {
  it('waits until the new rows are visible and reports how many appeared', async ({ openHarness }) => {
    harness = await openHarness({ ingestDelayMs: 300 * RATE_SCALE }); // 300 ms quiet
    const path = await harness.file('p.ndjson', ndjson(people(120)));
    // polls 2 s / 20 = 100 ms apart (not the suite's scale: the rows show 0.3 s after the last POST, a little
    // less after the wait began, and the poll that sees them is the one at 0.3 s); rate limits are off
    const result = await harness.tds(['push', harness.signups.url, path, '--batch-size', '50', '--wait', '--table', 'Signups', '--json'], {
      env: { TDS_RATE_SCALE: String(POLL_SCALE) },
    });
    expect(result.code, result.stderr).toBe(0);
    const { wait } = JSON.parse(result.stdout);
    expect(wait).toMatchObject({ before: 10, expected: 120, appeared: 120, after: 130, complete: true });
    expect(wait.seconds).toBeGreaterThanOrEqual(0.3);
  });

  it('ends with exit 7 when fewer rows than sent are visible in time, saying intake may still be running', async ({ openHarness }) => {
    harness = await openHarness({ ingestDelayMs: 60_000 * RATE_SCALE }); // a minute quiet
    const path = await harness.file('p.ndjson', ndjson(people(5)));
    // at the service's own scale the intake window (36 s) outlasts --wait-timeout: the rows may still come (not dropped)
    const result = await harness.tds(['push', harness.inbox.url, path, '--wait', '--table', harness.inbox.id, '--wait-timeout', '1'], {
      env: { TDS_RATE_SCALE: '1' },
    });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).not.toContain('dropped');
    expect(result.stderr).toMatch(/only 0 of 5 new rows were visible after 1 s/);
    expect(result.stderr).toMatch(/asynchronously.*do not re-send/);
  });

  it('needs --table and an API key, and checks them before sending', async ({ openHarness }) => {
    harness = await openHarness();
    const path = await harness.file('p.ndjson', ndjson(people(2)));
    const noTable = await harness.tds(['push', harness.inbox.url, path, '--wait']);
    expect(noTable.code, noTable.stderr).toBe(2);
    expect(noTable.stderr).toContain('--wait needs --table');
    const noKey = await harness.tds(['push', harness.inbox.url, path, '--wait', '--table', 'Inbox'], { env: { TDS_API_KEY: undefined } });
    expect(noKey.code, noKey.stderr).toBe(3);
    const unknown = await harness.tds(['push', harness.inbox.url, path, '--wait', '--table', 'Nope']);
    expect(unknown.code, unknown.stderr).toBe(4);
    expect(harness.emu.requestLog.filter((entry) => entry.method === 'POST')).toEqual([]);
  });
});

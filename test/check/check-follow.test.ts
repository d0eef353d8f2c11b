import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, vi } from 'vitest';
import type { Notification } from '../../src/check/notify.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { FIXTURE_NAME, makeFixture, writeChecks, type Fixture } from './fixture.js';
import { startReceiver, type Receiver } from './receiver.js';

// `tds sync --follow --check FILE --notify URL`: the table's checks run after each round that changed
// it (the first round included), the summary says how many fail, and a change of status is notified.

let harness: Harness;
let fixture: Fixture;
let receiver: Receiver;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  fixture = await makeFixture(harness);
  receiver = await startReceiver();
});
it.afterAll(async () => {
  await receiver?.close();
});

async function until(what: string, done: () => boolean): Promise<void> {
  while (!done()) await sleep(20, undefined, { ref: true }).catch(() => undefined);
  expect(done(), what).toBe(true);
}

describe('tds sync --follow --check', () => {
  it('checks the table after each round that changed it, says how many fail, notifies each change', async () => {
    const file = await writeChecks(harness, `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - rows: {min: 11}\n      - unique: Score\n`);
    const stop = new AbortController();
    const following = harness.tds(['sync', FIXTURE_NAME, '--follow', '--every', '0.1', '--check', file, '--notify', receiver.url], {
      interrupt: stop.signal,
    });
    const messages = (): Notification[] => receiver.received.map((each) => JSON.parse(each.body) as Notification);
    await until('the first round notified', () => messages().length === 1);
    expect(messages()[0]!.changes).toEqual([expect.objectContaining({ check: 'rows', from: null, to: 'fail' })]);
    await harness.admin('POST', `/tables/${fixture.tableId}/rows`, { rows: [{ cells: { Email: 'new@x.example', Enrich: null } }] });
    await until('the round that added a row notified', () => messages().length === 2);
    expect(messages()[1]!.changes).toEqual([expect.objectContaining({ check: 'rows', from: 'fail', to: 'pass' })]);
    stop.abort();
    const run = await following;
    expect(run.stderr).toMatch(/checks of Check Fixture: 1 fail, 1 pass\n {2}✗ FAIL Check Fixture: rows \(10, threshold ≥ 11\)/);
    expect(run.stderr).toMatch(/checks of Check Fixture: 2 pass/);
    expect(run.stderr).not.toContain('SECRET');
  });
});

describe('tds sync --follow --check --notify with a receiver that never answers', () => {
  it("a round never waits for the notification: the next round's checks run while its POST is unanswered", async () => {
    const silent = await startReceiver(() => 'hang');
    try {
      const file = await writeChecks(harness, `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - rows: {max: 0}\n`, 'silent.yaml');
      // a process: its stderr read as it goes
      const follower = harness.spawn(['sync', FIXTURE_NAME, '--follow', '--every', '0.1', '--check', file, '--notify', silent.url]);
      try {
        await vi.waitFor(() => expect(silent.received).toHaveLength(1), { timeout: 20_000, interval: 20 });
        await harness.admin('POST', `/tables/${fixture.tableId}/rows`, { rows: [{ cells: { Email: 'silent@x.example', Enrich: null } }] });
        const twice = /checks of Check Fixture: 1 fail\n[^]*checks of Check Fixture: 1 fail\n/;
        await vi.waitFor(() => expect(follower.stderr()).toMatch(twice), { timeout: 20_000, interval: 20 });
        // the second round's checks came before the first POST was given up (10 s a try), and nothing was posted twice
        expect(follower.stderr()).not.toMatch(/could not be delivered/);
        expect(silent.received).toHaveLength(1);
      } finally {
        follower.child.kill('SIGINT');
        await follower.ended;
      }
      expect(follower.stderr()).not.toContain('SECRET');
    } finally {
      await silent.close();
    }
  });
});

describe('tds check while tds sync --follow keeps the mirror', () => {
  it('checks the mirror as it is (no refusal) and says when each table was last verified', async () => {
    const file = await writeChecks(harness, `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - rows: {min: 1}\n`, 'followed.yaml');
    expect((await harness.tds(['sync', FIXTURE_NAME])).code).toBe(0);
    // a process: the lock is held between processes
    const follower = harness.spawn(['sync', '--follow', '--every', '0.2']);
    try {
      await vi.waitFor(() => expect(follower.stderr()).toMatch(/synced/), { timeout: 20_000, interval: 20 });
      const run = await harness.tds(['check', file, '--format', 'json']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/is being synced by PID \d+.*: its tables as they are/);
      expect(run.stderr).toMatch(/^Check Fixture: last verified \d+[smhd]( \d+[smhd])? ago \(\d{4}-\d\d-\d\dT[\d:]+Z\)$/m);
      expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ check: 'rows', status: 'pass' })]);
    } finally {
      follower.child.kill('SIGINT');
      await follower.ended;
    }
  });
});

import { describe, expect, vi } from 'vitest';
import type { Notification } from '../../src/check/notify.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { FIXTURE_NAME, makeFixture, writeChecks } from './fixture.js';
import { closedPort, startReceiver, type Answer } from './receiver.js';

// --notify: a local receiver gets one message per run in which a status changed, none when nothing
// changed; a 429 is retried, a POST that reached the receiver is not (a 5xx, a redirect, no answer):
// its change stays undelivered in the mirror, and the next run sends it, after a kill too; the URL (a
// secret) appears nowhere; an unreachable receiver is a line on stderr and leaves the exit status to the checks.

let harness: Harness;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  await makeFixture(harness);
});

/** A checks file whose check `name` fails (a check new to the mirror's runs: its first run is a change). */
const failingCheck = (name: string): Promise<string> =>
  writeChecks(
    harness,
    `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - sql: {name: ${name}, query: "SELECT _id FROM check_fixture LIMIT 1"}\n`,
    `${name}.yaml`,
  );

/** A checks file whose `rows` check passes up to `max` rows (the fixture has 10). */
const rowsUpTo = (max: number): Promise<string> =>
  writeChecks(
    harness,
    `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - rows: {max: ${max}}\n      - unique: Score\n`,
    `rows-${max}.yaml`,
  );

async function withReceiver(
  answer: Answer | undefined,
  work: (url: string, received: () => Notification[]) => Promise<void>,
): Promise<void> {
  const receiver = await startReceiver(answer);
  try {
    await work(receiver.url, () => receiver.received.map((each) => JSON.parse(each.body) as Notification));
  } finally {
    await receiver.close();
  }
}

describe('tds check --notify', () => {
  it('one message per change of status, none when nothing changed; the URL never shown, even with --verbose', async () => {
    await withReceiver(undefined, async (url, received) => {
      const failing = await harness.tds(['check', await rowsUpTo(5), '--notify', url, '--verbose', '--format', 'json']);
      expect(failing.code, failing.stderr).toBe(9);
      expect(received()).toHaveLength(1);
      expect(received()[0]).toEqual({
        text: expect.stringMatching(
          /^🔴 tds check: 1 check changed status \(now 1 fail, 1 pass\)\n• Check Fixture — rows: new → FAIL \(10, threshold ≤ 5\)$/,
        ),
        changes: [{ table: FIXTURE_NAME, check: 'rows', from: null, to: 'fail', observed: 10, threshold: '≤ 5', observedText: '10' }],
      });
      const same = await harness.tds(['check', await rowsUpTo(5), '--notify', url, '--verbose']);
      expect(same.code).toBe(9);
      expect(received()).toHaveLength(1);
      expect(same.stderr).toMatch(/no status changed since the last notification; nothing sent/);
      const mended = await harness.tds(['check', await rowsUpTo(50), '--notify', url, '--verbose']);
      expect(mended.code).toBe(0);
      expect(received()).toHaveLength(2);
      expect(received()[1]!.changes).toEqual([expect.objectContaining({ check: 'rows', from: 'fail', to: 'pass' })]);
      expect(received()[1]!.text).toMatch(/^🟢 [^\n]*\n• Check Fixture — rows: fail → PASS/);
      for (const run of [failing, same, mended]) {
        expect(run.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/… 200|no status changed/);
        expect(run.stderr + run.stdout).not.toContain('SECRET');
        expect(run.stderr + run.stdout).not.toContain(url);
      }
      expect(JSON.stringify(received())).not.toContain('SECRET');
    });
  });

  it('a 429 with retry-after is retried, and the message arrives', async () => {
    await withReceiver(
      (count) => (count === 1 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 200 }),
      async (url, received) => {
        const run = await harness.tds(['check', await failingCheck('retried-429'), '--notify', url]);
        expect(received().length, run.stderr).toBe(2);
        expect(received()[1]).toEqual(received()[0]);
        expect(run.stderr).toMatch(/tds: notified 1 change/);
      },
    );
  });

  it.each([
    ['a 500', 500, /the receiver at 127\.0\.0\.1:\d+ answered HTTP 500 after 1 attempt; the next run sends it again/],
    ['a 307', 307, /answered HTTP 307 \(a redirect, which is not followed: give the URL it points to\) after 1 attempt/],
  ])('%s: sent once (not again in the run); the change stays undelivered, and the next run sends it', async (_name, status, said) => {
    await withReceiver(
      (count) => (count === 1 ? { status } : { status: 200 }),
      async (url, received) => {
        const file = await failingCheck(`undelivered-${status}`);
        const first = await harness.tds(['check', file, '--notify', url]);
        expect(first.code, first.stderr).toBe(9);
        expect(received()).toHaveLength(1);
        expect(first.stderr).toMatch(said);
        const next = await harness.tds(['check', file, '--notify', url]);
        expect(next.code).toBe(9);
        expect(next.stderr).toMatch(/tds: notified 1 change/);
        expect(received()).toHaveLength(2);
        expect(received()[1]).toEqual(received()[0]);
        expect(received()[1]!.changes).toEqual([expect.objectContaining({ from: null, to: 'fail' })]);
        const after = await harness.tds(['check', file, '--notify', url]);
        expect(after.code).toBe(9);
        expect(received()).toHaveLength(2);
      },
    );
  });

  it('a receiver that never answers: one POST, given up after the bound of a try (--timeout when shorter); the next run sends it', async () => {
    await withReceiver(
      (count) => (count === 1 ? 'hang' : { status: 200 }),
      async (url, received) => {
        const file = await failingCheck('hanging');
        const first = await harness.tds(['check', file, '--notify', url, '--timeout', '0.3']);
        expect(first.code, first.stderr).toBe(9);
        expect(received()).toHaveLength(1);
        expect(first.stderr).toMatch(
          /could not be delivered: no answer from the receiver at 127\.0\.0\.1:\d+ within 300ms \(UND_ERR_HEADERS_TIMEOUT\); it may have taken the message after 1 attempt; the next run sends it again/,
        );
        const next = await harness.tds(['check', file, '--notify', url, '--timeout', '0.3']);
        expect(next.stderr).toMatch(/tds: notified 1 change/);
        expect(received()).toHaveLength(2);
      },
    );
  });

  it('a kill during the POST loses nothing: the next run sends the change', async () => {
    await withReceiver(
      (count) => (count === 1 ? 'hang' : { status: 200 }),
      async (url, received) => {
        const file = await failingCheck('killed');
        const killed = harness.spawn(['check', file, '--notify', url]);
        await vi.waitFor(() => expect(received()).toHaveLength(1), { timeout: 20_000, interval: 20 });
        killed.child.kill('SIGKILL');
        await killed.ended;
        const next = await harness.tds(['check', file, '--notify', url]);
        expect(next.code, next.stderr).toBe(9);
        expect(next.stderr).toMatch(/tds: notified 1 change/);
        expect(received()).toHaveLength(2);
        expect(received()[1]).toEqual(received()[0]);
      },
    );
  });

  it('@NAME reads the URL saved with `tds config set notify.NAME`', async () => {
    await withReceiver(undefined, async (url, received) => {
      const saved = await harness.tds(['config', 'set', 'notify.team'], { input: `${url}\n` });
      expect(saved.code, saved.stderr).toBe(0);
      const listed = await harness.tds(['config', 'list']);
      expect(listed.stdout + listed.stderr).not.toContain('SECRET');
      const run = await harness.tds(['check', await failingCheck('named'), '--notify', '@team']);
      expect(run.code).toBe(9);
      expect(received()).toHaveLength(1);
    });
  });

  it("an unreachable receiver: said on stderr after the retries (no secret), the exit status is the checks'", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/services/T0SECRET/B0TOKEN`;
    const run = await harness.tds(['check', await failingCheck('unreachable'), '--notify', url, '--max-retries', '2']);
    expect(run.code).toBe(9);
    expect(run.stderr).toMatch(
      /tds: warning: the notification of 1 change could not be delivered: the receiver at 127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\) after 3 attempts/,
    );
    expect(run.stderr).not.toContain('SECRET');
    const passing = await harness.tds(['check', await rowsUpTo(10_000), '--notify', url, '--max-retries', '0']);
    expect(passing.code).toBe(0);
  });
});

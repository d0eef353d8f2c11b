import { describe, expect } from 'vitest';
import type { CheckResult } from '../../src/check/check-result.js';
import { addRows, EMAIL_AND_ENRICH, makeTable } from '../helpers/admin-tables.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { startReceiver, writeChecks, type Receiver } from './fixture.js';

// Run states as the living emulator makes them: its action runs (queued until they run, then success,
// failed or skipped from the fault seed; an address without a domain fails), its clock route (the
// service's clock, which ages and stuck cells are measured on), and the notification of the change.

let harness: Harness;
let receiver: Receiver;
let tableId: string;
let checks: string;

const emails = (count: number, domain: boolean): Array<{ cells: Record<string, string> }> =>
  Array.from({ length: count }, (_, i) => ({ cells: { Email: domain ? `p${i}@firm${i}.example` : `nobody${i}` } }));

async function check(): Promise<{ code: number | null; results: CheckResult[]; stderr: string }> {
  const run = await harness.tds(['check', checks, '--format', 'json', '--notify', receiver.url]);
  return { code: run.code, results: JSON.parse(run.stdout || '[]') as CheckResult[], stderr: run.stderr };
}

it.override({ harnessOptions: { actionDelayMs: 3_600_000 } });
it.beforeAll(async ({ harness: fileHarness }) => {
  // an hour between steps: the action cells stay queued until the test settles them
  harness = fileHarness;
  receiver = await startReceiver();
  tableId = (await makeTable(harness, 'Living', EMAIL_AND_ENRICH)).id;
  await addRows(harness, tableId, emails(10, true));
  checks = await writeChecks(
    harness,
    'tables:\n  Living:\n    checks:\n      - stuck: {column: Enrich, max_age: 2h}\n      - failure_rate: {column: Enrich, max: 0.5, since: 1d}\n',
  );
});
it.afterAll(async () => {
  await receiver?.close();
});

describe('tds check on the living emulator', () => {
  it('cells queued for less than max_age are not stuck; three hours later on the service clock they are', async () => {
    const fresh = await check();
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.results.map((result) => [result.check, result.status, result.observed])).toEqual([
      ['stuck Enrich', 'pass', 0],
      ['failure_rate Enrich', 'pass', null],
    ]);
    await harness.admin('POST', '/clock', { advanceMs: 3 * 3_600_000 });
    const later = await check();
    expect(later.code).toBe(9);
    expect(later.results[0]).toMatchObject({
      status: 'fail',
      observed: 10,
      examples: expect.arrayContaining([expect.stringMatching(/^row_/)]),
    });
    expect(later.results[0]!.examples).toHaveLength(3);
    expect(receiver.notifications()).toHaveLength(1);
    expect(receiver.notifications()[0]!.changes).toEqual([
      expect.objectContaining({ check: 'stuck Enrich', from: 'pass', to: 'fail', observed: 10 }),
    ]);
  });

  it('once the runs end, nothing is stuck; addresses without a domain fail, and the failure rate crosses its threshold', async () => {
    await harness.admin('POST', '/actions/finish');
    const settled = await check();
    expect(settled.results[0]).toMatchObject({ status: 'pass', observed: 0 });
    expect(settled.results[1]!.status).toBe('pass');
    expect(settled.results[1]!.observed).toBeLessThanOrEqual(0.5);
    expect(receiver.notifications()).toHaveLength(2);
    await addRows(harness, tableId, emails(20, false));
    const failing = await check();
    expect(failing.code).toBe(9);
    expect(failing.results[1]).toMatchObject({ check: 'failure_rate Enrich', status: 'fail' });
    expect(failing.results[1]!.observed).toBeGreaterThan(0.5);
    expect(receiver.notifications()).toHaveLength(3);
    expect(receiver.notifications()[2]!.text).toMatch(/failure_rate Enrich: pass → FAIL \(\d+(\.\d)? %, threshold ≤ 50 % since 1d\)/);
    const again = await check();
    expect(again.code).toBe(9);
    expect(receiver.notifications()).toHaveLength(3);
  });
});

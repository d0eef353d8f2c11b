import { adminRoute } from '../helpers/emulator-fixture.js';
import { expect } from 'vitest';
import { ndjson, people } from '../push/helpers/emulator.js';
import { addRows, KEY_EMULATOR, keyedPush } from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// Issue 20, nearby: the service's createdAt is on the service's clock, never compared with ours as it
// is. --wait settled reads the rows a push added newest first, down to the push's start: that start is
// turned into the service's time through rows of the push itself, whatever the two clocks say.

test("--wait settled sees every row a push added when the service's clock runs 10 minutes behind ours", async ({ openHarness }) => {
  // actions that never finish: the rows stay unsettled, so every poll looks for all 300
  const harness = await openHarness({ ...KEY_EMULATOR, actionDelayMs: 600_000 });
  try {
    // rows from before, so reading the newest rows (3 pages) is cheaper than 300 `=` rules (4 queries) or the whole table
    await addRows(
      harness,
      harness.inbox.id,
      people(600, 10_000).map((person) => ({ Email: person.email })),
      () => '2025-01-01T00:00:00Z',
    );
    expect((await adminRoute(harness, 'POST', '/clock', { offsetMs: -600_000 })).status).toBe(200);
    const path = await harness.file('leads.ndjson', ndjson(people(300)));
    // time for a first poll of the 3 pages on a loaded machine (with 1 s, and then with 3 s beside the simulator
    // and the suite, a loaded run timed out after the first page)
    const args = keyedPush(harness, path, '--wait', 'settled', '--wait-timeout', '10');
    const result = await harness.tds([...args, '-v', '--json']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/waiting for the rows to settle: the 300 rows created since the push began read newest first/);
    // read down to the push's start on the service's clock: all 300 seen, none settled
    expect((JSON.parse(result.stdout) as { wait: { visible: number; settled: number } }).wait).toMatchObject({ visible: 300, settled: 0 });
  } finally {
    await harness.close();
  }
});

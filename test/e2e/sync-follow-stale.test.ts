import { describe, expect, vi } from 'vitest';
import { test as it } from '../helpers/emulator-fixture.js';

// Issue 42: a followed table whose last complete pass is older than --max-stale, for a reason the
// verification's plan did not foresee (here: a verified_at set back, as a slow machine or other
// clients' 429s leave it), is said once on stderr while the verification catches up.

describe('sync --follow past --max-stale', () => {
  it('a table verified longer ago than --max-stale is said once, by name', async ({ open }) => {
    const harness = await open({ rows: 20 });
    const synced = await harness.tds(['sync', 'Leads']);
    expect(synced.code, synced.stderr).toBe(0);
    // ten seconds ago at the rate scale is 1000 s of the service's time: past --max-stale 1m
    const set = await harness.tds(['sql', "UPDATE _tds_tables SET verified_at = now() - INTERVAL '10 seconds'", '--write']);
    expect(set.code, set.stderr).toBe(0);
    // a process: its stderr read as it goes
    const follow = harness.spawn(['sync', '--follow', '--every', '0.1', '--max-stale', '1m']);
    try {
      await vi.waitFor(() => expect(follow.stderr()).toMatch(/past --max-stale/), { timeout: 30_000, interval: 20 });
    } finally {
      follow.child.kill('SIGINT');
      await follow.ended;
    }
    const said = follow.stderr().match(/.*past --max-stale.*/g) ?? [];
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^tds: Leads: last verified \d+ (s|min|h \d+ min) ago, past --max-stale 60 s: changes to its old rows may not be in the mirror yet/,
    );
    expect(follow.stderr()).not.toMatch(/too large for --max-stale/);
  }, 60_000);
});

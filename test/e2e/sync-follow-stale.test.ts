import { describe, expect, vi } from 'vitest';
import { everyTypeTable } from '../mirror/helpers.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { connectMcp } from './mcp-support.js';
import { addEveryTypeRows, DAY, followInProcess, syncTables } from './sync-support.js';

// Issue 42: a followed table whose last complete pass is older than --max-stale, for a reason the
// verification's plan did not foresee (here: a verified_at set back, as a slow machine or other
// clients' 429s leave it), is said once on stderr, shown as stale wherever verified_at is shown, and
// verification catches up at the share's rate rather than the plan's.

/** The mirror's verified_at set back an hour: past any bound here (the follower's at the rate scale). */
async function setBackAnHour(harness: Harness): Promise<void> {
  const set = await harness.tds(['sql', "UPDATE _tds_tables SET verified_at = now() - INTERVAL '1 hour'", '--write']);
  expect(set.code, set.stderr).toBe(0);
}

async function sqlJson<T>(harness: Harness, sql: string): Promise<T[]> {
  const result = await harness.tds(['sql', sql, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T[];
}

describe('sync --follow past --max-stale', () => {
  it('a table verified longer ago than --max-stale is said once, by name', async ({ open }) => {
    const harness = await open({ rows: 20 });
    const synced = await harness.tds(['sync', 'Leads']);
    expect(synced.code, synced.stderr).toBe(0);
    // ten seconds ago at the rate scale is 1000 s of the service's time: past --max-stale 1m
    const set = await harness.tds(['sql', "UPDATE _tds_tables SET verified_at = now() - INTERVAL '10 seconds'", '--write']);
    expect(set.code, set.stderr).toBe(0);
    // its stderr read as it goes
    const follow = followInProcess(harness, ['sync', '--follow', '--every', '0.1', '--max-stale', '1m']);
    try {
      await vi.waitFor(() => expect(follow.stderr()).toMatch(/past --max-stale/), { timeout: 30_000, interval: 20 });
    } finally {
      await follow.stop();
    }
    const said = follow.stderr().match(/.*past --max-stale.*/g) ?? [];
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^tds: Leads: last verified \d+ (s|min|h \d+ min) ago, past --max-stale 60 s: changes to its old rows may not be in the mirror yet/,
    );
    expect(follow.stderr()).not.toMatch(/too large for --max-stale/);
  }, 60_000);

  it("is shown as stale wherever verified_at is: the follower's --json, tds stats, tds check (and its stale check), tds diff, MCP", async ({
    open,
  }) => {
    const harness = await open({ rows: 20 });
    expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);
    await setBackAnHour(harness);
    // next to no share: no verification catches up, the table stays past the bound the follower records (1m at the rate scale: 0.6 s);
    // a minute between rounds: Ctrl-C meets the follower waiting after its first round (exit 0), however slow the machine
    const stop = new AbortController();
    let written = { stdout: () => '' };
    const following = harness.tds(['sync', '--follow', '--every', '60', '--max-stale', '1m', '--max-share', '0.000001', '--json'], {
      interrupt: stop.signal,
      output: (output) => (written = output),
    });
    try {
      // the first round's summary is out: the follower waits between rounds
      await vi.waitFor(() => expect(written.stdout()).toMatch(/\n/), { timeout: 30_000, interval: 50 });
      expect(await sqlJson<{ ms: number }>(harness, 'SELECT epoch_ms(max_stale)::INT AS ms FROM _tds_tables')).toEqual([{ ms: 600 }]);
    } finally {
      stop.abort();
    }
    const followed = await following;
    expect(followed.code, followed.stderr).toBe(0);
    const summary = JSON.parse(followed.stdout.split('\n')[0]!) as { tables: Array<Record<string, unknown>> };
    expect(summary.tables[0]).toMatchObject({ mirrorTable: 'leads', maxStale: 0.6, stale: true });
    expect(summary.tables[0]!.staleFor).toBeGreaterThan(3_500);

    const stats = await harness.tds(['stats', 'Leads', '--no-sync', '--format', 'json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout).table).toMatchObject({ maxStale: 0.6, stale: true });
    const terminal = await harness.tds(['stats', 'Leads', '--no-sync', '--format', 'table']);
    expect(terminal.stdout).toMatch(/stale: 60 min past its bound of 1 s/);

    const checks = await harness.file('checks.yaml', 'tables:\n  Leads:\n    checks:\n      - stale: {}\n      - fresh: {max_age: 2h}\n');
    const checked = await harness.tds(['check', checks, '--no-sync', '--format', 'json']);
    expect(checked.code, checked.stderr).toBe(9);
    expect(JSON.parse(checked.stdout)).toMatchObject([
      { table: 'Leads', check: 'stale', status: 'fail', threshold: '≤ 0s (max_stale)' },
      { table: 'Leads', check: 'fresh', status: 'pass' },
    ]);
    expect(checked.stderr).toMatch(/^Leads: last verified 1h( \d+s)? ago \(.*\); stale: 60 min past its bound of 1 s$/m);

    const diff = await harness.tds(['diff', 'Leads', '--format', 'ndjson']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toMatch(/exact as of .* \(its last pass over every row\); stale: 60 min past its bound of 1 s$/m);

    const mcp = await connectMcp(harness);
    try {
      const listed = await mcp.call('list_tables');
      const leads = (listed.structured!.tables as Array<{ name: string; mirror: Record<string, unknown> | null }>).find(
        (table) => table.name === 'Leads',
      );
      expect(leads?.mirror).toMatchObject({ table: 'leads', maxStale: 0.6, stale: true });
      const described = await mcp.call('describe_table', { table: 'Leads' });
      expect(described.structured!.table).toMatchObject({ mirrorTable: 'leads', maxStale: 0.6, stale: true });
      // sync_tables says it per table as the sync's --json does, and its output schema says so
      const synced = await mcp.call('sync_tables', { tables: ['Leads'] });
      expect((synced.structured!.tables as unknown[])[0]).toMatchObject({ mirrorTable: 'leads', maxStale: 0.6, stale: true });
      const { tools } = await mcp.client.listTools();
      const syncTool = tools.find((tool) => tool.name === 'sync_tables')!;
      const properties = syncTool.outputSchema!.properties as { tables: { items: { properties: Record<string, unknown> } } };
      const tableSchema = properties.tables.items;
      expect(Object.keys(tableSchema.properties)).toEqual(expect.arrayContaining(['verifiedAt', 'maxStale', 'stale', 'staleFor']));
    } finally {
      await mcp.close();
    }
  }, 90_000);

  it("on a terminal, the follower's line shows the stale table while it waits", async ({ open }) => {
    const harness = await open({ rows: 20 });
    expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);
    await setBackAnHour(harness);
    const stop = new AbortController();
    let written = { stderr: () => '' };
    // stderr a terminal (TDS_FORCE_TTY); next to no share: the table stays past its bound; a minute between
    // rounds: Ctrl-C meets the follower waiting (exit 0), however slow the machine
    const following = harness.tds(['sync', '--follow', '--every', '60', '--max-stale', '1m', '--max-share', '0.000001'], {
      env: { TDS_FORCE_TTY: '1' },
      interrupt: stop.signal,
      output: (output) => (written = output),
    });
    try {
      await vi.waitFor(
        () =>
          expect(written.stderr()).toMatch(
            // its age as --max-stale counts it (at the rate scale, as the line said once on stderr)
            /following 1 table · next round in \d+ s · stale, past --max-stale 60 s: Leads \(last verified \d+ days ago\)/,
          ),
        { timeout: 30_000, interval: 50 },
      );
    } finally {
      stop.abort();
    }
    expect((await following).code).toBe(0);
  }, 60_000);

  it('behind its bound, verification reads at the share, not at the spacing of its plan (from the request log)', async ({ open }) => {
    const harness = await open();
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 450, from: 1, createdAgoMs: (k) => 10 * DAY - k * 60_000 });
    await syncTables(harness, [table.id]);
    const set = await harness.tds(['sql', "UPDATE _tds_tables SET verified_at = now() - INTERVAL '2 days'", '--write']);
    expect(set.code, set.stderr).toBe(0);
    const since = harness.emu.requestLog.length;
    // 5 pages, --max-stale 20h: the plan's spacing 0.9 × 20 h / (5 + 5) = 6480 s of the service, 65 s here, so
    // that no machine is slow enough to pass at it; the share's (0.5 of 60 a minute) 2 s of the service, 20 ms
    // here. Behind, the pass takes what the machine needs.
    const planMs = (0.9 * 20 * 3_600_000) / 10 / RATE_SCALE;
    // a process: the test reads the mirror while it follows (DuckDB's lock keeps out readers of other processes only)
    const follow = harness.spawn(['sync', '--follow', '--every', '0.1', '--max-stale', '20h', '--max-share', '0.5']);
    try {
      await vi.waitFor(
        async () => {
          const [state] = await sqlJson<{ ago: number }>(harness, 'SELECT epoch_ms(now()) - epoch_ms(verified_at) AS ago FROM _tds_tables');
          expect(state!.ago).toBeLessThan(60_000);
        },
        { timeout: 60_000, interval: 100 },
      );
    } finally {
      follow.child.kill('SIGINT');
      await follow.ended;
    }
    const pages = harness.emu.requestLog
      .slice(since)
      .filter((entry) => entry.bucket === 'rows' && entry.status === 200)
      .map((entry) => entry.at);
    expect(pages.length).toBeGreaterThanOrEqual(5);
    // the pages did not wait for the plan: its spacing would put the fifth 4 × planMs after the first
    expect(pages[4]! - pages[0]!).toBeLessThan(2 * planMs);
    expect(follow.stderr()).toMatch(/Every Type: last verified .* ago, past --max-stale 20 h 0 min/);
  }, 90_000);
});

describe('one clock: staleness on the service clock, as verified_at is', () => {
  it('the service two hours ahead of this machine: tds stats, MCP and a one-shot --max-stale measure on its clock', async ({ open }) => {
    const harness = await open({ rows: 20 });
    await harness.admin('POST', '/clock', { offsetMs: 2 * 3_600_000 });
    expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);
    // verified 90 min ago on the service's clock (30 min ahead of this machine's), past a bound of 1 h
    const set = await harness.tds([
      'sql',
      "UPDATE _tds_tables SET verified_at = verified_at - INTERVAL '90 minutes', max_stale = INTERVAL '1 hour'",
      '--write',
    ]);
    expect(set.code, set.stderr).toBe(0);

    const stats = await harness.tds(['stats', 'Leads', '--format', 'json']);
    expect(stats.code, stats.stderr).toBe(0);
    const { table } = JSON.parse(stats.stdout) as { table: { stale: boolean; staleFor: number } };
    expect(table.stale).toBe(true);
    expect(table.staleFor).toBeGreaterThan(1_700);
    expect(table.staleFor).toBeLessThan(2_000);

    const mcp = await connectMcp(harness);
    try {
      await mcp.call('sync_tables', { tables: ['Leads'] });
      const described = await mcp.call('describe_table', { table: 'Leads' });
      expect(described.structured!.table).toMatchObject({ maxStale: 3_600, stale: true });
      const listed = await mcp.call('list_tables');
      const leads = (listed.structured!.tables as Array<{ name: string; mirror: Record<string, unknown> | null }>).find(
        (entry) => entry.name === 'Leads',
      );
      expect(leads?.mirror).toMatchObject({ stale: true });
    } finally {
      await mcp.close();
    }

    // 90 min > 80 min on the service's clock: a full pass (this machine's clock would say -30 min)
    const synced = await harness.tds(['sync', 'Leads', '--max-stale', '80m', '--json']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout).tables[0]).toMatchObject({ mode: 'full', stale: false });
    expect(synced.stderr).toMatch(/leads: last verified 90 min ago .*: reading every row \(--max-stale\)/);
  }, 90_000);
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TDS_BIN } from '../helpers/cli.js';
import {
  everyTypeCells,
  everyTypeTable,
  expectMirrorEqualsExport,
  exportRows,
  mirrorBench,
  mirrorRows,
  SCALE,
  typesByKey,
  type MirrorBench,
} from '../mirror/helpers.js';

// `tds sync` end to end: the real CLI against an emulator whose data the tests change through its
// admin routes, then the mirror compared with a fresh export of the same table, value by value.

let bench: MirrorBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const DAY = 86_400_000;
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function addRows(
  b: MirrorBench,
  tableId: string,
  count: number,
  from: number,
  createdAgoMs?: (i: number) => number,
): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, k) => ({
    cells: everyTypeCells(from + k),
    ...(createdAgoMs ? { createdAt: ago(createdAgoMs(k)) } : {}),
  }));
  const created = await b.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, { rows });
  return created.rows.map((row) => row.id);
}

async function expectEqual(b: MirrorBench, tableId: string, mirrorTable: string): Promise<void> {
  expectMirrorEqualsExport(await mirrorRows(b, mirrorTable), await exportRows(b, tableId), await typesByKey(b, tableId));
}

describe('tds sync: a mirror equal to the service', () => {
  it('first sync is full, with every column type (values that do not fit are NULL and counted)', async () => {
    bench = await mirrorBench();
    const table = await everyTypeTable(bench);
    await addRows(bench, table.id, 150, 1, (i) => (150 - i) * 3_600_000);
    const result = await bench.tds(['sync', 'Every Type', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { tables: Array<Record<string, unknown>> };
    expect(summary.tables).toMatchObject([
      { mirrorTable: 'every_type', mode: 'full', complete: true, rowsRead: 150, inserted: 150, updated: 0, deleted: 0 },
    ]);
    // Amount every 7th row and Due every 11th row hold text that is not a number or a date
    expect(summary.tables[0]!.unfit).toBe(Math.floor(150 / 7) + Math.floor(150 / 11));
    await expectEqual(bench, table.id, 'every_type');
    const types = await bench.tds([
      'sql',
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'every_type'",
      '--format',
      'json',
    ]);
    expect(JSON.parse(types.stdout)).toEqual(
      expect.arrayContaining([
        { column_name: '_id', data_type: 'VARCHAR' },
        { column_name: '_createdAt', data_type: 'TIMESTAMP WITH TIME ZONE' },
        { column_name: 'Amount', data_type: 'DOUBLE' },
        { column_name: 'Active', data_type: 'BOOLEAN' },
        { column_name: 'Due', data_type: 'TIMESTAMP WITH TIME ZONE' },
        { column_name: 'Tags', data_type: 'VARCHAR[]' },
        { column_name: 'Address', data_type: 'JSON' },
        { column_name: 'Enrich', data_type: 'JSON' },
        { column_name: 'Enrich.status', data_type: 'VARCHAR' },
        { column_name: 'Enrich.error', data_type: 'VARCHAR' },
        { column_name: 'Owner', data_type: 'VARCHAR' },
        { column_name: '_truncated', data_type: 'VARCHAR[]' },
      ]),
    );
    const cut = await bench.tds([
      'sql',
      "SELECT count(*) AS n FROM every_type WHERE list_contains(_truncated, 'Notes')",
      '--format',
      'csv',
    ]);
    expect(cut.stdout).toBe(`n\n${Math.floor(150 / 13)}\n`);
  });

  it('after adds, updates, deletes and schema changes: incremental reads what is new, --full makes it equal again', async () => {
    bench = await mirrorBench();
    const table = await everyTypeTable(bench);
    const ids = await addRows(bench, table.id, 60, 1, (i) => 30 * DAY - (i * DAY) / 4);
    expect((await bench.tds(['sync', table.id])).code).toBe(0);

    // schema: a field added, one relabelled, one removed (a retype has its own test)
    const field = (label: string) => table.fields.find((candidate) => candidate.label === label)!.id;
    await bench.admin('POST', `/tables/${table.id}/fields`, { label: 'Region', type: 'text' });
    await bench.admin('PATCH', `/tables/${table.id}/fields/${field('Notes')}`, { label: 'Remarks' });
    await bench.admin('DELETE', `/tables/${table.id}/fields/${field('Logo')}`);
    // data: new rows, old rows changed and deleted
    const fresh = (
      await bench.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${table.id}/rows`, {
        rows: Array.from({ length: 12 }, (_, k) => {
          const { Logo: _logo, Notes: notes, ...cells } = everyTypeCells(100 + k);
          return { cells: { ...cells, Remarks: notes, Region: 'EMEA' } };
        }),
      })
    ).rows.map((row) => row.id);
    await bench.admin('PATCH', `/tables/${table.id}/rows/${ids[3]}`, { cells: { Name: 'Renamed long ago', Amount: 42 } });
    await bench.admin('POST', `/tables/${table.id}/rows/delete`, { ids: [ids[5], ids[6]] });

    const incremental = await bench.tds(['sync', '--json']);
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(incremental.stderr).toMatch(/every_type: column "Region" added \(text\)/);
    expect(incremental.stderr).toMatch(/every_type: column "Notes" renamed to "Remarks"/);
    expect(incremental.stderr).toMatch(/every_type: field "Logo" was removed from the table; its column "Logo" is kept/);
    const summary = JSON.parse(incremental.stdout) as { tables: Array<Record<string, unknown>> };
    // one page holds the new rows and every old one: the rows it no longer has are deleted, the edit is seen
    expect(summary.tables[0]).toMatchObject({ mode: 'incremental', inserted: 12, updated: 1, deleted: 2, requests: 2 });
    const mirror = await mirrorRows(bench, 'every_type');
    for (const id of fresh) expect(mirror.some((row) => row._id === id)).toBe(true);
    await expectEqual(bench, table.id, 'every_type');

    const full = await bench.tds(['sync', '--full', '--json']);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout).tables[0]).toMatchObject({ mode: 'full', inserted: 0, deleted: 0 });
    const after = await mirrorRows(bench, 'every_type');
    expect(after.find((row) => row._id === ids[3])).toMatchObject({ Name: 'Renamed long ago', Amount: 42 });
    // the removed field's column is kept with its values (NULL in rows created since)
    expect(after.filter((row) => row.Logo !== null).map((row) => row._id)).toEqual(
      after.filter((row) => !fresh.includes(row._id as string)).map((row) => row._id),
    );
    await expectEqual(bench, table.id, 'every_type');
  });

  it.each([
    ['phone_number to number', 'Phone', 'number', /converted; \d+ values that do not fit are NULL now/],
    ['number to text (a cast would write 1.5 as "1.5" but 3 as "3.0")', 'Amount', 'text', /converted/],
  ])(
    "a field retyped from %s: the sync that sees it is a full pass, and every row holds the service's value",
    async (_what, label, type, converted) => {
      bench = await mirrorBench();
      const table = await everyTypeTable(bench);
      await addRows(bench, table.id, 150, 1, (i) => 30 * DAY - i * 60_000);
      expect((await bench.tds(['sync', table.id])).code).toBe(0);
      const fieldId = table.fields.find((field) => field.label === label)!.id;
      await bench.admin('PATCH', `/tables/${table.id}/fields/${fieldId}`, { type });

      const retyped = await bench.tds(['sync', '--json']);
      expect(retyped.code, retyped.stderr).toBe(0);
      expect(retyped.stderr).toMatch(new RegExp(`every_type: column "${label}" retyped from \\w+ to ${type}: ${converted.source}`));
      expect(JSON.parse(retyped.stdout).tables[0]).toMatchObject({ mode: 'full', complete: true, rowsRead: 150, deleted: 0 });
      await expectEqual(bench, table.id, 'every_type');
      // and the sync after it is incremental again
      const next = await bench.tds(['sync', '--json']);
      expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental' });
    },
  );

  it('an idle incremental sync costs one row request; rows whose actions were running are read again until they settle', async () => {
    bench = await mirrorBench({ actionDelayMs: 1500 } as never);
    const table = await everyTypeTable(bench);
    await addRows(bench, table.id, 150, 1, (i) => 10 * DAY - i * 60_000);
    expect((await bench.tds(['sync', table.id])).code).toBe(0);
    // the Enrich action ran on every row as it arrived: statuses were queued or running at the first sync
    const pending = await bench.tds([
      'sql',
      "SELECT count(*) AS n FROM every_type WHERE \"Enrich.status\" IN ('queued', 'running', 'waiting')",
      '--format',
      'csv',
    ]);
    expect(pending.stdout).not.toBe('n\n0\n');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const settle = await bench.tds(['sync', '--json']);
    expect(JSON.parse(settle.stdout).tables[0]).toMatchObject({ mode: 'incremental', updated: 150 });
    await expectEqual(bench, table.id, 'every_type');

    const before = bench.emu.requestLog.length;
    const idle = await bench.tds(['sync', '--json']);
    const rowRequests = bench.emu.requestLog.slice(before).filter((entry) => entry.bucket === 'rows');
    expect(JSON.parse(idle.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 0, updated: 0, deleted: 0 });
    expect(rowRequests).toHaveLength(1);
  });
});

describe('tds sync: the watermark', () => {
  it('rows that become visible late, within the intake window, are still synced by the next incremental sync', async () => {
    // the webhook intake holds what is sent until the test flushes it
    bench = await mirrorBench({ ingestDelayMs: 600_000 } as never);
    const { tables } = (await (
      await fetch(`${bench.emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${bench.emu.apiKey}` } })
    ).json()) as { tables: Array<{ id: string; name: string }> };
    const signups = tables.find((table) => table.name === 'Signups')!;
    expect((await bench.tds(['sync', 'Signups'])).code).toBe(0);
    const rows = `/tables/${signups.id}/rows`;

    // five rows sent to the webhook (created now, not visible yet); two pages of rows that show at once,
    // created 20 to 10 s ago
    const sent = await fetch(bench.emu.webhooks[signups.id]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ email: `late${i}@example.com`, name: `Late ${i}`, plan: 'pro' }))),
    });
    expect(sent.status).toBeLessThan(300);
    const now = Date.now();
    const at = (ms: number): string => new Date(now - ms).toISOString();
    await bench.admin('POST', rows, {
      rows: Array.from({ length: 200 }, (_, i) => ({
        cells: { Email: `shown${i}@example.com`, Name: `Shown ${i}` },
        createdAt: at(10_000 + i * 50),
      })),
    });
    const before = await bench.tds(['sync', '--json']);
    expect(JSON.parse(before.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 200 });

    // now the webhook rows show (older than that sync's start), and a row sent 21 s ago that the intake
    // held until now (the admin route gives it that creation time): below both pages that sync read
    bench.emu.flushIntake();
    await bench.admin('POST', rows, { rows: [{ cells: { Email: 'held@example.com', Name: 'Held' }, createdAt: at(21_000) }] });
    const after = await bench.tds(['sync', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 6, deleted: 0 });
    const ids = (records: Array<Record<string, unknown>>): unknown[] => records.map((record) => record._id);
    expect(ids(await mirrorRows(bench, 'signups'))).toEqual(ids(await exportRows(bench, signups.id)));
  });

  it('--follow: after a burst, an idle poll costs one row request', async () => {
    bench = await mirrorBench();
    const table = await everyTypeTable(bench);
    await addRows(bench, table.id, 150, 1, (i) => 10 * DAY - i * 60_000);
    expect((await bench.tds(['sync', table.id])).code).toBe(0);
    // as if that sync had run ten minutes ago, and 1,000 rows had come in a burst two minutes ago (so
    // more than the margin before the next sync starts; a burst just now is read again by every poll
    // until the margin has passed, as a row may still show late among its rows)
    const aged = await bench.tds(['sql', `UPDATE _tds_tables SET watermark = TIMESTAMPTZ '${ago(11 * 60_000)}'`, '--write']);
    expect(aged.code, aged.stderr).toBe(0);
    await addRows(bench, table.id, 1000, 200, (i) => 120_000 - i);

    const child = spawn(process.execPath, [TDS_BIN, 'sync', '--follow', '--every', '0.3', '--json'], {
      env: {
        ...process.env,
        TDS_BASE_URL: bench.emu.baseUrl,
        TDS_API_KEY: bench.emu.apiKey,
        TDS_RATE_SCALE: String(SCALE),
        TDS_DB: bench.db,
        NO_COLOR: '1',
      },
      cwd: bench.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      // round 0 reads the burst and prints its summary
      await vi.waitFor(() => expect(stdout).toContain('\n'), { timeout: 20_000, interval: 20 });
      expect(JSON.parse(stdout.split('\n')[0]!).tables[0]).toMatchObject({ mode: 'incremental', inserted: 1000 });
      const since = bench.emu.requestLog.length;
      const polls = (): number[][] => {
        const groups: number[][] = [];
        for (const entry of bench!.emu.requestLog.slice(since)) {
          if (entry.bucket !== 'rows') continue;
          const last = groups.at(-1);
          if (last && entry.at - last.at(-1)! < 150) last.push(entry.at);
          else groups.push([entry.at]);
        }
        return groups;
      };
      await vi.waitFor(() => expect(polls().length).toBeGreaterThanOrEqual(5), { timeout: 20_000, interval: 50 });
      expect(polls().map((poll) => poll.length)).toEqual(polls().map(() => 1));
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });
});

describe('tds sync: interruptions leave a consistent mirror that the next sync completes', () => {
  function startSync(b: MirrorBench, args: string[]) {
    const env = {
      ...process.env,
      TDS_BASE_URL: b.emu.baseUrl,
      TDS_API_KEY: b.emu.apiKey,
      TDS_RATE_SCALE: String(SCALE),
      TDS_DB: b.db,
      NO_COLOR: '1',
    };
    return spawn(process.execPath, [TDS_BIN, 'sync', ...args], { env, cwd: b.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  it.each([
    ['SIGKILL', 'SIGKILL' as const, null],
    ['SIGINT (exit 130)', 'SIGINT' as const, 130],
  ])(
    '%s in the middle of a --full sync; the next sync continues that pass, and it still deletes what it did not see',
    async (_name, signal, code) => {
      // limits on (60 row requests a minute, 50 times faster): past the first burst of 60, the 80 pages come 50 a second
      bench = await mirrorBench({ rateLimits: true } as never);
      const table = await everyTypeTable(bench);
      const ids: string[] = [];
      for (let start = 0; start < 8000; start += 2000)
        ids.push(...(await addRows(bench, table.id, 2000, start, (i) => (8000 - start - i) * 60_000)));
      expect((await bench.tds(['sync', table.id])).code).toBe(0);
      // the oldest rows go away: a full pass reads them last, so the interrupted one has not come to them
      const oldest = ids.slice(0, 5);
      await bench.admin('POST', `/tables/${table.id}/rows/delete`, { ids: oldest });

      const reads = bench.emu.requestLog.filter((entry) => entry.bucket === 'rows').length;
      const child = startSync(bench, ['--full']);
      const exited = once(child, 'exit');
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const rowReads = (): number =>
        bench!.emu.requestLog.filter((entry) => entry.bucket === 'rows' && entry.status === 200).length - reads;
      await vi.waitFor(() => expect(rowReads()).toBeGreaterThanOrEqual(30), { timeout: 20_000, interval: 5 });
      child.kill(signal);
      const [exit, killed] = (await exited) as [number | null, string | null];
      if (code !== null) expect(exit, stderr).toBe(code);
      else expect(killed).toBe('SIGKILL');
      const state = await bench.tds([
        'sql',
        'SELECT pass_mode, pass_cursor IS NOT NULL AS saved, pass_rows FROM _tds_tables',
        '--format',
        'json',
      ]);
      const [saved] = JSON.parse(state.stdout) as Array<{ pass_mode: string; saved: boolean; pass_rows: number }>;
      expect(saved).toMatchObject({ pass_mode: 'full', saved: true });
      expect(saved!.pass_rows).toBeGreaterThan(0);

      const resumed = await bench.tds(['sync', '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const summary = JSON.parse(resumed.stdout).tables[0] as { rowsRead: number };
      expect(summary).toMatchObject({ mode: 'full', complete: true, deleted: 5 });
      // it went on from where the interrupted one stopped (what that one had written is not read again)
      expect(summary.rowsRead + saved!.pass_rows).toBe(8000 - 5);
      await expectEqual(bench, table.id, 'every_type');

      // a row deleted after a pass read it is found by the next --full, which always starts afresh
      await bench.admin('POST', `/tables/${table.id}/rows/delete`, { ids: [ids.at(-1)] });
      const full = await bench.tds(['sync', '--full', '--json']);
      expect(JSON.parse(full.stdout).tables[0]).toMatchObject({ mode: 'full', deleted: 1 });
      await expectEqual(bench, table.id, 'every_type');
    },
    90_000,
  );

  it('rides out injected 500s, 429s and resets (the client retries reads)', async () => {
    bench = await mirrorBench({ readFaults: '500:0.1,429:0.05,reset:0.05', faultSeed: 3 } as never);
    const table = await everyTypeTable(bench);
    await addRows(bench, table.id, 800, 0, (i) => (800 - i) * 60_000);
    const result = await bench.tds(['sync', table.id, '--max-retries', '10']);
    expect(result.code, result.stderr).toBe(0);
    await expectEqual(bench, table.id, 'every_type');
  });
});

describe('tds sync: bad input', () => {
  it.each([
    ['an unknown table', ['sync', 'No Such Table'], 4, /no table with ID or name "No Such Table"/],
    ['nothing to sync in a new mirror', ['sync'], 2, /has no tables yet: name the tables to sync/],
    ['--every without --follow', ['sync', 'Leads', '--every', '5'], 2, /--every goes with --follow/],
    [
      'a --db that is not a DuckDB file',
      ['sync', 'Leads', '--db', 'not-a-db.txt'],
      2,
      /the mirror .*not-a-db\.txt is not a DuckDB database/,
    ],
    [
      'a --db that is a JSON file (which DuckDB would open as an empty in-memory database)',
      ['sync', 'Leads', '--db', 'leads.json'],
      2,
      /the mirror leads\.json is not a DuckDB database/,
    ],
    [
      'a --db that is a folder',
      ['sync', 'Leads', '--db', '.'],
      2,
      /the mirror \. is a folder\nhint: give --db a file name, e\.g\. tds\.duckdb/,
    ],
    [
      'a --db in a folder that is not there',
      ['sync', 'Leads', '--db', '/nonexistent/dir/m.duckdb'],
      2,
      /cannot open the mirror \/nonexistent\/dir\/m\.duckdb: .*No such file or directory/,
    ],
    ['a different --header for a mirrored table', ['sync', 'Leads', '--header', 'id'], 2, /has keys by label, not by id/],
  ])('%s: a clear error and the right exit code', async (_name, args, code, message) => {
    bench ??= await mirrorBench();
    await writeFile(join(bench.dir, 'not-a-db.txt'), 'hello, this is not a database\n');
    await writeFile(join(bench.dir, 'leads.json'), '[{"Name": "Ada"}]\n');
    if (args.includes('--header')) expect((await bench.tds(['sync', 'Leads'])).code).toBe(0);
    const result = await bench.tds(args);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/bug in tds|at .*\.js/);
  });

  it('a mirror written by a newer tds is refused, by sync and sql alike', async () => {
    bench = await mirrorBench();
    const first = await bench.tds(['sync', 'Leads']);
    expect(first.code, first.stderr).toBe(0);
    const marked = await bench.tds(['sql', "COMMENT ON TABLE _tds_tables IS 'tds mirror format 9'", '--write']);
    expect(marked.code, marked.stderr).toBe(0);
    const newer = await bench.tds(['sync']);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toMatch(/was written by a newer tds \(mirror format 9; this one reads format 2\)/);
    expect((await bench.tds(['sql', 'SELECT 1'])).code).toBe(2);
  });

  it('a mirror in use by another sync is refused, not waited on', async () => {
    bench = await mirrorBench();
    expect((await bench.tds(['sync', 'Leads'])).code).toBe(0);

    const follower = spawn(process.execPath, [TDS_BIN, 'sync', '--follow', '--every', '0.2'], {
      env: {
        ...process.env,
        TDS_BASE_URL: bench.emu.baseUrl,
        TDS_API_KEY: bench.emu.apiKey,
        TDS_DB: bench.db,
        TDS_RATE_SCALE: String(SCALE),
      },
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await bench.tds(['sync']);
    const reader = await bench.tds(['sql', 'SELECT count(*) FROM leads']);
    follower.kill('SIGINT');
    await once(follower, 'exit');
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/the mirror .*mirror\.duckdb is in use by another process \(PID \d+\)/);
    // DuckDB's lock keeps out even a read-only sql while a sync writes (README says so)
    expect(reader.code).toBe(2);
    expect(reader.stderr).toMatch(
      /in use by another process[\s\S]*hint: while a tds sync \(or tds sql --write\) writes a mirror, no other process can open it/,
    );
  });
});

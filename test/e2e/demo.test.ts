import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runTds } from '../helpers/cli.js';
import { test as it } from '../helpers/emulator-fixture.js';

describe('tds demo', () => {
  it('walks through every main job on the embedded emulator and exits 0', async ({ tmp: dir }) => {
    // the user's own settings stay out of the demo: it mirrors into its folder, not into TDS_DB
    const elsewhere = join(dir, 'elsewhere.duckdb');
    // a tour of some twenty processes: on a loaded machine it took over 90 s
    const result = await runTds(['demo', '--dir', dir], { timeoutMs: 180_000, env: { TDS_DB: elsewhere } });
    expect(result.stderr).not.toMatch(/tds: /);
    expect(result.code).toBe(0);
    const out = result.stdout;
    for (const line of [
      '$ tds workspaces',
      '$ tds tables',
      '$ tds schema Leads',
      '$ tds rows Leads -o leads.csv',
      '$ head -4 leads.csv',
      '$ tds query Leads --where',
      '$ tds rows Leads --format ndjson -n 3 | jq',
      '$ tds push signups.csv --table Inbox --wait',
      '$ tds push new-leads.csv --key email --table Inbox --skip-existing --wait settled -o enriched.csv',
      '$ tds rows Inbox --columns Email,Domain,Company --status-columns --no-meta',
      '$ tds sync Leads Companies',
      '$ tds stats Leads --no-sync --columns Stage,Enrich --format table',
      '$ tds check --notify http://127.0.0.1:PORT/hooks/demo --format table',
      '• Leads — failure_rate Enrich: pass → FAIL',
      '$ tds diff Leads --format ndjson',
      '"change":"added"',
      '$ cat .mcp.json',
      '"args": [\n        "tds",\n        "mcp"\n      ]',
      '$ tds sql "SELECT Stage, count(*) AS leads, count(*) FILTER (WHERE \\"Enrich.status\\" = \'failed\') AS failed FROM leads',
      '/_emulator/tables/',
      '$ tds sync\n',
      'tds config set api-key',
    ]) {
      expect(out).toContain(line);
    }
    // a step that waits on the service says what for before it waits, and the end says how long the tour took
    expect(out).toContain(
      "$ tds push signups.csv --table Inbox --wait\n# waiting for the webhook adds rows asynchronously: tds polls the table's row count",
    );
    expect(out).toMatch(
      /--wait settled -o enriched\.csv\n# waiting for the lookup of the keys, the rows to show, then each row's Domain and Company cells/,
    );
    expect(out).toMatch(/\$ tds sync Leads Companies\n# waiting for every row of both tables/);
    // the push's budget line (issue 45), counted in the demo's own data folder: its webhook is new
    expect(out).toMatch(/^ {2}webhook budget +3 of 50,000 submissions used, 49,997 left \(webhook-budget\)$/m);
    expect(out).toMatch(/^# the tour took \d+ s \(\d+ commands, each a tds process started afresh\)$/m);
    expect(out).toContain('Sales');
    expect(out).toContain('Leads');
    expect(out).toContain('ada@example.com');
    // every command shown is one a machine with tds has (issue 25: csvcut was not)
    expect(out).not.toMatch(/csvcut|csvkit/);
    expect(out).toContain('Email,Domain,Domain.status,Domain.error,Company,Company.status,Company.error\n');
    // the mirror: a first full sync of both tables, SQL over it, then an incremental sync that reads a page, not the table
    expect(out).toMatch(/leads +full +\d+ requests +250 read +250 inserted/);
    expect(out).toMatch(/companies +full +\d+ requests +40 read +40 inserted/);
    expect(out).toMatch(/Stage +leads +failed\n/);
    expect(out).toMatch(/Failure causes: Enrich \(\d+ causes?\)/);
    const incremental = /leads +incremental +\d+ requests? +(\d+) read +2 inserted +0 updated +0 deleted/.exec(out);
    expect(incremental, out).not.toBeNull();
    expect(Number(incremental![1])).toBeLessThanOrEqual(100);
    // then an old lead edited and another deleted on the service: a plain sync finds them by the count, and says when it verified
    expect(out).toMatch(/PATCH row_\S+ 200\nDELETE row_\S+ 200\n/);
    expect(out).toContain('leads: the mirror holds 1 more row than the service lists: rows were deleted; reading every row to find them');
    // the edited row, and rows whose action cells ran on meanwhile (the emulator is alive): at least one updated
    expect(out).toMatch(
      /leads +full +\d+ requests +\d+ read +0 inserted +[1-9]\d* updated +1 deleted .* verified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/,
    );
    await expect(stat(elsewhere)).rejects.toThrow();
    expect((await stat(join(dir, 'tds.duckdb'))).isFile()).toBe(true);
    // the round trip: ada was pushed before (left out), the two others sent; all three enriched, in input order
    expect(out).toMatch(/existing\s+1 already in the table/);
    const enriched = (await readFile(join(dir, 'enriched.csv'), 'utf8')).trim().split('\n');
    expect(enriched).toHaveLength(4);
    expect(enriched.slice(1).map((line) => line.match(/[\w.]+@[\w.]+/)?.[0])).toEqual([
      'ada@example.com',
      'katherine@nasa.gov',
      'margaret@mit.edu',
    ]);
    expect(enriched.join('\n')).not.toMatch(/,(queued|waiting|running),/);
    const csv = await readFile(join(dir, 'leads.csv'), 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^_id,_createdAt,_updatedAt,_createdByUserId,/);
    // The key and the webhook URL stay in files, never on screen.
    const key = (await readFile(join(dir, 'api-key'), 'utf8')).trim();
    const webhook = (await readFile(join(dir, 'inbox-webhook-url'), 'utf8')).trim();
    expect(out).not.toContain(key);
    expect(out + result.stderr).not.toContain(webhook);
    expect((await stat(join(dir, 'api-key'))).mode & 0o777).toBe(0o600);
  }, 200_000);
});

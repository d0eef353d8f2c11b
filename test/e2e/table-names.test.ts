import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Issue 25: `tds tables` shows "🏢 Companies"; the same name, as shown or with its shortcode, is a TABLE
// wherever one is taken (sync, schema, rows, query, push --table), and the ambiguity rule stays.

let harness: Harness;
it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
});

describe('a table named as `tds tables` shows it, or with its emoji shortcode', () => {
  it('tds tables shows the emoji before the name', async () => {
    const result = await harness.tds(['tables', '--workspace', 'Sales']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/🏢 Companies/);
  });

  it('tds sync takes "🏢 Companies" and ":rocket:Leads"', async () => {
    const result = await harness.tds(['sync', '🏢 Companies', ':rocket:Leads', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { tables: Array<{ name: string; mirrorTable: string }> };
    expect(summary.tables.map((table) => [table.name, table.mirrorTable])).toEqual([
      ['Companies', 'companies'],
      ['Leads', 'leads'],
    ]);
  });

  it.each([
    ['schema', ['schema', ':office: Companies', '--format', 'csv'], /^id,name,label,type,options,isSystem\nfld_\w+,name,Name,text/],
    ['rows', ['rows', '🏢Companies', '--columns', 'Name', '--no-meta', '-n', '1'], /^Name\n.+\n$/],
    ['query', ['query', ':office:Companies', '--where', 'Employees > 0', '--columns', 'Name', '--no-meta', '-n', '1'], /^Name\n.+\n$/],
  ])('tds %s takes it', async (_command, args, stdout) => {
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(stdout);
  });

  it('tds push --table takes "📨 Inbox" (waits for the rows) and ":incoming_envelope: Inbox" (push by key)', async () => {
    const inboxUrl = await inboxWebhook();
    const file = join(harness.dir, 'people.csv');
    await writeFile(file, 'email\nann@initech.example\nbo@globex.example\n');
    const env = { TDS_WEBHOOK_URL: inboxUrl };
    const waited = await harness.tds(['push', file, '--table', '📨 Inbox', '--wait', '--journal', join(harness.dir, 'a.journal')], { env });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/rows visible\s+2 of 2/);
    const keyed = await harness.tds(
      [
        'push',
        file,
        '--key',
        'email',
        '--table',
        ':incoming_envelope: Inbox',
        '--skip-existing',
        '--journal',
        join(harness.dir, 'b.journal'),
      ],
      { env },
    );
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stderr).toMatch(/existing\s+2 already in the table/);
  });

  it('keeps the ambiguity rule: two tables shown as "🏢 Companies" are an error that lists their IDs (exit 2)', async () => {
    const other = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Marketing',
      name: 'Companies',
      emoji: ':office:',
      fields: [{ label: 'Name', type: 'text' }],
    });
    for (const ref of ['🏢 Companies', ':office: Companies', 'Companies']) {
      const result = await harness.tds(['schema', ref]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`table name ".*Companies" matches 2 tables: tbl_\\S+ \\(workspace "Sales"\\), ${other.table.id}`),
      );
    }
  });
});

describe('one rule for a table name everywhere: exact, then ignoring case; a typo gets "did you mean"', () => {
  it.each([
    ['schema', ['schema', 'leads', '--format', 'csv']],
    ['rows', ['rows', 'leads', '--columns', 'Name', '--no-meta', '-n', '1']],
    ['sync', ['sync', 'leads', '--json']],
    ['stats', ['stats', 'LEADS', '--no-sync', '--format', 'json']],
    ['diff', ['diff', 'Leads', '--summary', '--format', 'json']],
  ])('tds %s takes "leads" in any case', async (_command, args) => {
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
  });

  it.each([
    ['schema', ['schema', 'Leeds'], 'did you mean "Leads" (tbl_'],
    ['sync', ['sync', 'Leeds'], 'did you mean "Leads" (tbl_'],
    ['stats', ['stats', 'Leeds', '--no-sync'], 'did you mean "Leads" or "leads"?'],
    ['diff', ['diff', 'Leeds'], 'did you mean "Leads" or "leads"?'],
  ])('tds %s suggests the name a typo meant (exit 4)', async (_command, args, hint) => {
    const result = await harness.tds(args);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(hint);
  });
});

async function inboxWebhook(): Promise<string> {
  const response = await fetch(`${harness.emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${harness.emu.apiKey}` } });
  const { tables } = (await response.json()) as { tables: Array<{ id: string; name: string }> };
  return harness.emu.webhooks[tables.find((table) => table.name === 'Inbox')!.id]!;
}

describe("a service table named like DuckDB's catalog (issue 29, item 11)", () => {
  it('is mirrored under another name: SHOW TABLES and information_schema still answer', async () => {
    for (const name of ['duckdb_tables', 'sqlite_master', 'information_schema', 'pg_catalog']) {
      await harness.admin('POST', '/tables', { workspace: 'Sales', name, fields: [{ label: 'Name', type: 'text' }] });
    }
    const synced = await harness.tds([
      'sync',
      'duckdb_tables',
      'sqlite_master',
      'information_schema',
      'pg_catalog',
      '--db',
      'catalog.duckdb',
    ]);
    expect(synced.code, synced.stderr).toBe(0);
    const shown = await harness.tds(['sql', 'SHOW TABLES', '--db', 'catalog.duckdb', '--format', 'csv']);
    expect(shown.code, shown.stderr).toBe(0);
    for (const name of ['sales_duckdb_tables', 'sales_sqlite_master', 'sales_information_schema', 'sales_pg_catalog']) {
      expect(shown.stdout).toMatch(new RegExp(`^${name}$`, 'm'));
    }
    const columns = await harness.tds([
      'sql',
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'sales_pg_catalog'",
      '--db',
      'catalog.duckdb',
      '--format',
      'csv',
    ]);
    expect(columns.stdout).toBe('n\n1\n');
  });
});

import { readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { fetchJson } from './read-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// workspaces, tables and schema against the emulator's demo seed, in every format.

let emulator: Harness;
let tds: Harness['tds'];
let service: { workspaces: unknown[]; tables: Array<Record<string, unknown>>; leadsFields: unknown[] };

it.override({ harnessOptions: { spawned: {} } });

it.beforeAll(async ({ harness }) => {
  emulator = harness;
  tds = harness.tds;
  const tables = (await fetchJson(emulator, '/tables')).tables as Array<Record<string, unknown>>;
  const leads = tables.find((table) => table.name === 'Leads')!;
  service = {
    workspaces: (await fetchJson(emulator, '/workspaces')).workspaces as unknown[],
    tables,
    leadsFields: (await fetchJson(emulator, `/tables/${String(leads.id)}/schema`)).fields as unknown[],
  };
});

const tableId = (name: string, workspace?: string): string =>
  String(service.tables.find((t) => t.name === name && (!workspace || t.workspaceName === workspace))!.id);

const lines = (text: string): string[] => text.trimEnd().split('\n');

describe.concurrent('tds workspaces', () => {
  it('prints an aligned table with right-aligned counts, and one verbose line per request', async () => {
    const result = await tds(['workspaces', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = lines(result.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+TABLES$/);
    expect(rows.map((row) => row.split(/\s{2,}/)[1])).toEqual(['Sales', 'Marketing', 'People Ops']);
    for (const row of rows) {
      expect(row.length).toBe(header!.length); // the count column ends where its header ends
      expect(row).toMatch(/ \d+$/);
    }
    expect(result.stderr).toMatch(/^GET \/v1\/workspaces 200 \d+ms$/m);
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });

  it.each(['json', 'ndjson'])('--format %s writes the service objects unchanged', async (format) => {
    const result = await tds(['workspaces', '--format', format]);
    expect(result.code, result.stderr).toBe(0);
    const parsed = format === 'json' ? JSON.parse(result.stdout) : lines(result.stdout).map((line) => JSON.parse(line));
    expect(parsed).toEqual(service.workspaces);
  });

  it.each([
    ['csv', ','],
    ['tsv', '\t'],
  ])('--format %s has a header of the spec fields and one line per workspace', async (format, separator) => {
    const result = await tds(['workspaces', '--format', format]);
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = lines(result.stdout);
    expect(header).toBe(['id', 'name', 'tableCount'].join(separator));
    expect(rows).toHaveLength(service.workspaces.length);
    const peopleOps = service.workspaces[2] as { id: string };
    expect(rows).toContain([peopleOps.id, 'People Ops', '1'].join(separator));
  });

  it('uses colour only when a terminal is forced and NO_COLOR is unset', async () => {
    const result = await tds(['workspaces'], { env: { TDS_FORCE_TTY: '1', NO_COLOR: undefined } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\u001b\[1mID/);
    const plain = await tds(['workspaces', '--no-color'], { env: { TDS_FORCE_TTY: '1', NO_COLOR: undefined } });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^ID\s+NAME\s+TABLES$/m); // the same table, without colour
    expect(plain.stdout).not.toMatch(/\u001b\[/);
  });

  it('-o FILE takes the format from the extension and leaves no partial file', async ({ tmp }) => {
    const dir = tmp;
    const result = await tds(['workspaces', '-o', join(dir, 'ws.json')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(JSON.parse(await readFile(join(dir, 'ws.json'), 'utf8'))).toEqual(service.workspaces);
    expect(await readdir(dir)).toEqual(['ws.json']);
  });

  it('-o FILE with an unknown extension is a usage error (exit 2) before any request', async () => {
    const result = await tds(['workspaces', '-o', join(tmpdir(), 'ws.xlsx'), '--verbose']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot tell the format/);
    expect(result.stderr).not.toMatch(/GET /);
  });

  it('has a description and examples in --help', async () => {
    const result = await tds(['workspaces', '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/list the workspaces/);
    expect(result.stdout).toMatch(/Examples:\n {2}\$ tds workspaces/);
  });
});

describe.concurrent('tds tables', () => {
  it('shows emoji shortcodes as emoji, with right-aligned counts', async () => {
    const result = await tds(['tables']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('🚀 Leads');
    expect(result.stdout).toContain('🏢 Companies');
    expect(result.stdout).not.toContain(':rocket:');
    const [header, ...rows] = lines(result.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+WORKSPACE\s+ROWS\s+COLUMNS$/);
    const rowsEnd = header!.indexOf('ROWS') + 'ROWS'.length;
    const leads = rows.find((row) => row.includes('Leads'))!;
    expect(leads.slice(rowsEnd - 3, rowsEnd)).toBe('250');
  });

  it('fits a narrow terminal by cutting names, never IDs', async () => {
    const result = await tds(['tables'], { env: { COLUMNS: '56' } });
    expect(result.code, result.stderr).toBe(0);
    const output = lines(result.stdout);
    expect(output).toHaveLength(1 + service.tables.length);
    for (const line of output) expect(line.length).toBeLessThanOrEqual(56);
    expect(result.stdout).toContain('…');
    for (const table of service.tables) expect(result.stdout).toContain(String(table.id));
  });

  it('keeps whole cells in a pipe without COLUMNS, and fits a terminal', async () => {
    const piped = await tds(['schema', 'Leads'], { env: { COLUMNS: undefined } });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('Closed Won');
    // whole cells make the table wider than the terminal below, so fitting it has to cut
    expect(Math.max(...lines(piped.stdout).map((line) => line.length))).toBeGreaterThan(90);
    const terminal = await tds(['schema', 'Leads'], { env: { COLUMNS: '90', TDS_FORCE_TTY: '1' } });
    expect(terminal.code, terminal.stderr).toBe(0);
    const fitted = lines(terminal.stdout);
    expect(fitted[0]).toMatch(/^ID\s+LABEL\s+NAME\s+TYPE\s+OPTIONS\s+SYSTEM$/);
    expect(fitted).toHaveLength(lines(piped.stdout).length); // every field still there, one line each
    for (const line of fitted) expect(line.length).toBeLessThanOrEqual(90);
    expect(terminal.stdout).toContain('…');
  });

  it.each([['Marketing'], ['marketing'], ['id']])('--workspace by %s lists only that workspace', async (by) => {
    const marketing = service.tables.find((t) => t.workspaceName === 'Marketing')!;
    const ref = by === 'id' ? String(marketing.workspaceId) : by;
    const result = await tds(['tables', '--workspace', ref, '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const listed = lines(result.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listed).toEqual(service.tables.filter((t) => t.workspaceName === 'Marketing'));
  });

  it('--workspace with an unknown workspace exits 4', async () => {
    const result = await tds(['tables', '--workspace', 'Nowhere']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^tds: no workspace with ID or name "Nowhere"/m);
  });

  it('--workspace with a typo gets did-you-mean, in tables and in sync alike', async () => {
    const listed = await tds(['tables', '--workspace', 'Marketting']);
    expect(listed.code).toBe(4);
    expect(listed.stderr).toContain('tds: no workspace with ID or name "Marketting" in this organization\nhint: did you mean "Marketing"?');
    const synced = await tds(['sync', '--workspace', 'MARKETTING']);
    expect(synced.code).toBe(4);
    expect(synced.stderr).toContain('hint: did you mean "Marketing"?');
  });

  it('--format json writes the service tables unchanged (emoji as shortcodes)', async () => {
    const result = await tds(['tables', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(service.tables);
  });

  it('--format csv has the spec fields as header', async () => {
    const result = await tds(['tables', '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout)[0]).toBe('id,name,emoji,workspaceId,workspaceName,rowCount,fieldCount');
    expect(result.stdout).toContain(`${tableId('Leads')},Leads,:rocket:,`);
  });
});

describe.concurrent('tds schema', () => {
  it('shows id, label, name, type, option labels and system flag, marking shared labels', async () => {
    const result = await tds(['schema', 'Leads'], { env: { COLUMNS: '250' } });
    expect(result.code, result.stderr).toBe(0);
    const out = lines(result.stdout);
    expect(out[0]).toMatch(/^ID\s+LABEL\s+NAME\s+TYPE\s+OPTIONS\s+SYSTEM$/);
    expect(out.filter((line) => / Email \* /.test(line))).toHaveLength(2);
    expect(out.find((line) => / stage /.test(line))).toMatch(/select\s+.*Closed Won/);
    expect(out.find((line) => /Created At/.test(line))).toMatch(/\byes$/);
    expect(out.at(-1)).toMatch(/^\* label shared by several columns/);
  });

  it('accepts the table ID and writes the service fields unchanged as JSON', async () => {
    const result = await tds(['schema', tableId('Leads'), '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(service.leadsFields);
  });

  it('--format csv writes options as JSON text', async () => {
    const result = await tds(['schema', 'Leads', '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    const out = lines(result.stdout);
    expect(out[0]).toBe('id,name,label,type,options,isSystem');
    expect(out.find((line) => line.includes(',stage,'))).toMatch(/,select,"\[\{""label"":/);
  });

  it('an ambiguous name exits 2 listing the IDs and workspaces', async () => {
    const result = await tds(['schema', 'Contacts']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `tds: table name "Contacts" matches 2 tables: ${tableId('Contacts', 'Sales')} (workspace "Sales"), ${tableId('Contacts', 'Marketing')} (workspace "Marketing")`,
    );
    expect(result.stdout).toBe('');
  });

  it('an unknown table exits 4', async () => {
    const result = await tds(['schema', 'No Such Table']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^tds: no table with ID or name "No Such Table" in this organization$/m);
  });

  it('has examples in --help', async () => {
    const result = await tds(['schema', '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Examples:\n {2}\$ tds schema Leads/);
  });
});

describe.concurrent('listings as Parquet', () => {
  it("workspaces, tables and schema to -o FILE.parquet: the listing's fields as typed columns, every object", async ({ tmp }) => {
    const { columnTypes, readParquet } = await import('../export/parquet-file.js');
    const dir = tmp;
    const runs = [
      ['workspaces', '-o', join(dir, 'ws.parquet')],
      ['tables', '-o', join(dir, 'tables.parquet')],
      ['schema', 'Leads', '--format', 'parquet', '-o', join(dir, 'leads-schema.bin')],
    ];
    for (const args of runs) {
      const result = await tds(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
    }
    const tables = await readParquet(join(dir, 'tables.parquet'));
    expect(columnTypes(tables)).toEqual([
      'id VARCHAR',
      'name VARCHAR',
      'emoji VARCHAR',
      'workspaceId VARCHAR',
      'workspaceName VARCHAR',
      'rowCount BIGINT',
      'fieldCount BIGINT',
    ]);
    const plain = (rows: Array<Record<string, unknown>>) =>
      rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
    expect(plain(tables.rows)).toEqual(service.tables);
    expect(plain((await readParquet(join(dir, 'ws.parquet'))).rows)).toEqual(
      (service.workspaces as Array<Record<string, unknown>>).map(({ id, name, tableCount }) => ({ id, name, tableCount })),
    );
    const schema = await readParquet(join(dir, 'leads-schema.bin'));
    expect(schema.columns.map((column) => column.type)).toEqual(['VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'JSON', 'BOOLEAN']);
    expect(schema.rows).toEqual(service.leadsFields);
    expect((await readdir(dir)).sort()).toEqual(['leads-schema.bin', 'tables.parquet', 'ws.parquet']);
  });

  it('--format parquet without -o FILE exits 2 with a hint', async () => {
    const result = await tds(['tables', '--format', 'parquet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /parquet needs -o FILE: it is a binary format, never written to a terminal\nhint: e\.g\. tds tables -o tables\.parquet/,
    );
  });
});

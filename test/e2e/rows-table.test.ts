import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { displayWidth } from '../../src/output/table.js';
import { emulatorRequests } from './read-support.js';
import { allRows, leadsWithRecords, schemaOf, tableNamed, type Rec, type ServiceTable } from './rows-support.js';

// Issue 16: `tds rows|query --format table`. On a terminal (TDS_FORCE_TTY=1, LINES and COLUMNS give its
// size): a screenful of rows sized to the terminal, with a footer and hints; piped: plain aligned text.

let emulator: Harness;
let tds: Harness['tds'];
let leads: ServiceTable & { records: Rec[] };

it.override({ harnessOptions: { spawned: {} } });

it.beforeAll(async ({ harness }) => {
  emulator = harness;
  tds = harness.tds;
  leads = await leadsWithRecords(emulator);
});

const terminal = (lines: number, columns: number) => ({ env: { TDS_FORCE_TTY: '1', LINES: String(lines), COLUMNS: String(columns) } });
const lines = (text: string): string[] => text.trimEnd().split('\n');
const text = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : value === null ? '' : String(value));

describe('--format table on a terminal', () => {
  it('shows a screenful of the newest rows sized to the terminal, a footer, and a hint that more rows exist', async () => {
    const before = (await emulatorRequests(emulator)).length;
    const result = await tds(['rows', 'Leads', '--format', 'table'], terminal(15, 100));
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rest] = lines(result.stdout);
    const footer = rest.pop();
    // the table's own columns first; the meta keys after them, so they are the first left out
    expect(header).toMatch(/^Name\s+Email\s+/);
    expect(header).not.toMatch(/_id/);
    expect(rest.map((line) => line.slice(0, 10))).toEqual(leads.records.slice(0, 10).map((record) => text(record.Name).slice(0, 10)));
    expect(footer).toMatch(/^10 of 250 rows · 🚀 Leads · \d+ columns not shown$/);
    for (const line of lines(result.stdout)) expect(displayWidth(line)).toBeLessThanOrEqual(100);
    expect(result.stderr).toContain('hint: 240 more rows: -n 250 shows them all (the default is a screenful)');
    expect(result.stderr).toMatch(/^hint: \d+ columns do not fit the terminal \("[^"]+", .*--columns, or .*--no-meta$/m);
    // A screenful costs one page of that size.
    const reads = (await emulatorRequests(emulator)).slice(before).filter((entry) => entry.path.includes('/rows'));
    expect(reads.map((entry) => new URL(entry.path, 'http://x').searchParams.get('limit'))).toEqual(['10']);
  });

  it('leaves out the columns asked for by --columns and --status-columns last, after the meta keys', async () => {
    const result = await tds(
      ['rows', 'Leads', '--format', 'table', '-n', '3', '--columns', 'Notes,Enrich', '--status-columns'],
      terminal(40, 90),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout)[0]).toMatch(/^Notes\s+Enrich\s+Enrich\.status\s+Enrich\.error\b/);
    expect(result.stderr).toMatch(/columns do not fit the terminal \("_createdAt", "_updatedAt"/);
  });

  it('shows select labels, joined multi-select labels and numbers right-aligned; long cells are cut with …', async () => {
    const result = await tds(
      ['rows', 'Leads', '--format', 'table', '-n', '4', '--columns', 'Name,Stage,Tags,Employees,Notes', '--no-meta'],
      terminal(40, 90),
    );
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rest] = lines(result.stdout);
    expect(header).toMatch(/^Name\s+Stage\s+Tags\s+Employees\s+Notes$/);
    expect(rest.pop()).toBe('4 of 250 rows · 🚀 Leads');
    const employeesEnd = header!.indexOf('Employees') + 'Employees'.length;
    rest.forEach((line, i) => {
      const record = leads.records[i]!;
      expect(line.startsWith(text(record.Name))).toBe(true);
      expect(line).toContain(text(record.Stage));
      expect(line).toContain(text(record.Tags).slice(0, 10));
      if (record.Employees !== null) expect(line.slice(0, employeesEnd).trimEnd().endsWith(String(record.Employees))).toBe(true);
      expect(displayWidth(line)).toBeLessThanOrEqual(90);
    });
    expect(result.stdout).toContain('…');
    expect(result.stderr).not.toMatch(/more rows/);
  });

  it('query: the hint says more rows match', async () => {
    const result = await tds(
      ['query', 'Leads', '--where', 'Employees >= 10', '--format', 'table', '--columns', 'Name,Employees', '--no-meta'],
      terminal(10, 80),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout)).toHaveLength(1 + 5 + 1);
    expect(lines(result.stdout).pop()).toBe('5 rows (more match) · 🚀 Leads');
    expect(result.stderr).toContain('hint: more rows match: raise -n (the default is a screenful)');
  });
});

describe('--format table through the pager', () => {
  const pager = { TDS_PAGER: "sed 's/^/paged: /'" };

  it('goes through the pager (TDS_PAGER, PAGER) when longer than the terminal, as tds sql does; never when not a terminal', async () => {
    const args = ['rows', 'Leads', '--format', 'table', '-n', '30', '--columns', 'Name', '--no-meta'];
    const paged = await tds(args, { env: { ...terminal(15, 80).env, ...pager } });
    expect(paged.code, paged.stderr).toBe(0);
    // the header, 30 rows and the footer, every line through the pager
    expect(lines(paged.stdout)).toHaveLength(32);
    for (const line of lines(paged.stdout)) expect(line).toMatch(/^paged: /);
    expect(lines(paged.stdout)[0]).toMatch(/^paged: Name\s*$/);
    const query = ['query', 'Leads', '--where', 'Employees >= 0', '--format', 'table', '-n', '30', '--columns', 'Name', '--no-meta'];
    expect(lines((await tds(query, { env: { ...terminal(15, 80).env, ...pager } })).stdout)[0]).toMatch(/^paged: /);
    const short = await tds(['rows', 'Leads', '--format', 'table', '-n', '3'], { env: { ...terminal(15, 80).env, ...pager } });
    expect(short.stdout).not.toContain('paged');
    const piped = await tds(args, { env: pager });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).not.toContain('paged');
  });
});

describe('--format table piped', () => {
  it('prints every row as plain aligned text with whole cells, no footer and no hint', async () => {
    const result = await tds(['rows', 'Leads', '--format', 'table', '--columns', 'Name,Notes', '--no-meta']);
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rest] = lines(result.stdout);
    expect(header).toMatch(/^Name\s+Notes$/);
    expect(rest).toHaveLength(250);
    rest.forEach((line, i) => {
      expect(line.startsWith(text(leads.records[i]!.Name))).toBe(true);
      expect(line.endsWith(text(leads.records[i]!.Notes).replace(/\s+/g, ' '))).toBe(true);
    });
    expect(result.stdout).not.toContain('…');
    expect(result.stdout).not.toMatch(/\u001b\[/);
    expect(result.stderr).not.toMatch(/hint:/);
  });

  it('a webhook payload is its compact JSON (not the object’s name); a member is its name', async () => {
    const signups = await tableNamed(emulator, 'Signups');
    const payload = (await schemaOf(emulator, signups.id)).find((field) => field.type === 'webhook')!;
    const rows = await allRows(emulator, signups.id);
    const result = await tds(['rows', 'Signups', '--format', 'table', '--columns', 'Payload', '--no-meta', '-n', '3']);
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout).slice(1)).toEqual(rows.slice(0, 3).map((row) => JSON.stringify(row.cells[payload.id]!.value)));
    const owners = await tds(['rows', 'Leads', '--format', 'table', '--columns', 'Owner', '--no-meta', '-n', '5']);
    expect(lines(owners.stdout).slice(1)).toEqual(
      leads.records.slice(0, 5).map((record) => (record.Owner as { name?: string } | null)?.name ?? ''),
    );
  });

  it('an empty table says so on stderr and prints nothing', async () => {
    const result = await tds(['rows', 'Empty', '--format', 'table'], terminal(20, 80));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no rows in this table\n');
  });

  it('with COLUMNS set, cuts to that width like `tds tables`', async () => {
    const result = await tds(['rows', 'Leads', '--format', 'table', '-n', '5', '--no-meta'], { env: { COLUMNS: '60' } });
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout)).toHaveLength(6);
    for (const line of lines(result.stdout)) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(result.stdout).toContain('…');
  });

  it.each([
    [['rows', 'Leads', '--format', 'table', '-o', 'out.csv'], /--format table is for the terminal \(or a pipe\), not for -o FILE/],
    [['rows', 'Leads', '--format', 'table', '--follow'], /--follow writes rows as they appear, which a table cannot do/],
  ])('%j exits 2', async (args, message) => {
    const result = await tds(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import {
  EDGE_KEYS,
  LEADS_KEYS,
  asText,
  expectedRecords,
  leadsWithRecords,
  parseDelimited,
  parseNdjson,
  serviceTable,
  type Rec,
  type ServiceTable,
} from './rows-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds rows` output in every format, field by field, against records computed from the emulator's answers.

let emulator: Harness;
let tds: Harness['tds'];
let leads: ServiceTable & { records: Rec[] };
let edge: ServiceTable;

it.override({ harnessOptions: { spawned: {} } });

it.beforeAll(async ({ harness }) => {
  emulator = harness;
  tds = harness.tds;
  leads = await leadsWithRecords(emulator);
  edge = await serviceTable(emulator, 'Edge Cases');
});

describe.concurrent('tds rows: formats', () => {
  it('CSV (the default) on stdout: header of the keys, then every row in service order', async () => {
    const result = await tds(['rows', 'Leads']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(['_id', '_createdAt', '_updatedAt', '_createdByUserId', ...LEADS_KEYS].join(','));
    expect(parseDelimited(result.stdout)).toEqual(leads.records.map(asText));
  });

  it('TSV', async () => {
    const result = await tds(['rows', leads.table.id, '--format', 'tsv']);
    expect(result.code).toBe(0);
    expect(parseDelimited(result.stdout, '\t')).toEqual(leads.records.map(asText));
  });

  it('NDJSON: every key present, null for empty cells, JSON types kept, select labels', async () => {
    const result = await tds(['rows', 'Leads', '--format', 'ndjson']);
    expect(result.code).toBe(0);
    const records = parseNdjson(result.stdout);
    expect(records).toEqual(leads.records);
    for (const record of records)
      expect(Object.keys(record)).toEqual(['_id', '_createdAt', '_updatedAt', '_createdByUserId', ...LEADS_KEYS]);
    expect(records.map((record) => record.Stage)).toContain('Closed Won');
    expect(records.some((record) => typeof record.Employees === 'number' && typeof record.Qualified === 'boolean')).toBe(true);
  });

  it('JSON to -o FILE (format from the extension): one array', async ({ tmp }) => {
    const dir = tmp;
    const result = await tds(['rows', 'Leads', '-o', join(dir, 'leads.json')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(JSON.parse(await readFile(join(dir, 'leads.json'), 'utf8'))).toEqual(leads.records);
  });

  it('keys: a label shared by columns or equal to a meta key gets (2), (3); preview-only cells show their preview', async () => {
    const result = await tds(['rows', 'Edge Cases', '--format', 'ndjson']);
    expect(result.code).toBe(0);
    const records = parseNdjson(result.stdout);
    expect(Object.keys(records[0]!)).toEqual(['_id', '_createdAt', '_updatedAt', '_createdByUserId', ...EDGE_KEYS]);
    expect(records).toEqual(expectedRecords(edge.rows, edge.fields, { keys: EDGE_KEYS }));
    expect(records.some((record) => typeof record['Long Text'] === 'string' && (record['Long Text'] as string).length === 200)).toBe(true);
    expect(result.stderr).toMatch(/cells were cut by the service at 200 characters \(the cut text was kept\): "Long Text" \d+/);
  });

  it('--no-meta --no-system --header name, and --columns picking by label, name and ID in the given order', async () => {
    const plain = await tds(['rows', 'Leads', '--format', 'ndjson', '--no-meta', '--no-system', '--header', 'name', '-n', '3']);
    expect(plain.code).toBe(0);
    const names = leads.fields.filter((field) => !field.isSystem).map((field) => field.name);
    expect(Object.keys(parseNdjson(plain.stdout)[0]!)).toEqual(names);

    const stage = leads.fields.find((field) => field.label === 'Stage')!;
    const picked = await tds(['rows', 'Leads', '--columns', `${stage.id},Email (2),Name`, '--no-meta']);
    expect(picked.code).toBe(0);
    expect(parseDelimited(picked.stdout)).toEqual(
      leads.records.map((r) => asText({ [stage.label]: r.Stage, 'Email (2)': r['Email (2)'], Name: r.Name })),
    );
    expect(picked.stdout.split('\n')[0]).toBe('Stage,Email (2),Name');
  });

  it('--cells raw writes whole Cell objects; --status-columns adds the action column status and error', async () => {
    const raw = await tds(['rows', 'Leads', '--format', 'ndjson', '--cells', 'raw', '--no-meta']);
    expect(parseNdjson(raw.stdout)).toEqual(expectedRecords(leads.rows, leads.fields, { keys: LEADS_KEYS, raw: true, meta: false }));

    const status = await tds(['rows', 'Leads', '--format', 'ndjson', '--columns', 'Name,Enrich', '--status-columns', '--no-meta']);
    expect(status.code).toBe(0);
    const records = parseNdjson(status.stdout);
    const enrich = leads.fields.find((field) => field.label === 'Enrich')!;
    expect(records).toEqual(
      leads.rows.map((row, i) => ({
        Name: leads.records[i]!.Name,
        Enrich: leads.records[i]!.Enrich,
        'Enrich.status': row.cells[enrich.id]?.status ?? null,
        'Enrich.error': row.cells[enrich.id]?.errorMessage ?? null,
      })),
    );
    expect(new Set(records.map((record) => record['Enrich.status']))).toEqual(
      new Set(['success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual', null]),
    );
  });

  it('--excel: BOM, CRLF, formula guard; --join joins arrays of plain values', async () => {
    const result = await tds(['rows', 'Leads', '--excel', '--join', '; ', '--columns', 'Name,Tags,Notes', '--no-meta']);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('\ufeffName,Tags,Notes\r\n')).toBe(true);
    const cells = parseDelimited(result.stdout);
    const guard = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
    expect(cells).toEqual(
      leads.records.map((r) => ({
        Name: guard(String(r.Name ?? '')),
        Tags: Array.isArray(r.Tags) ? r.Tags.join('; ') : '',
        Notes: guard(String(r.Notes ?? '')),
      })),
    );
    expect(cells.map((row) => row.Name)).toContain("'=SUM(A1:A2)");
  });

  it('--excel: lists as "a, b" and members by name; --excel eu and --delimiter: ; between fields', async () => {
    const plain = await tds(['rows', 'Leads', '--excel', '--columns', 'Name,Tags,Owner,Address', '--no-meta']);
    expect(plain.code, plain.stderr).toBe(0);
    const expected = leads.records.map((r) => ({
      Name: String(r.Name ?? '').replace(/^([=+\-@\t\r])/, "'$1"),
      Tags: Array.isArray(r.Tags) ? r.Tags.join(', ') : '',
      Owner: r.Owner ? String((r.Owner as { name: string }).name) : '',
      // an object stays JSON
      Address: r.Address === null || r.Address === undefined ? '' : typeof r.Address === 'string' ? r.Address : JSON.stringify(r.Address),
    }));
    expect(expected.some((row) => row.Tags.includes(', '))).toBe(true);
    expect(expected.some((row) => row.Owner !== '')).toBe(true);
    expect(parseDelimited(plain.stdout)).toEqual(expected);
    const eu = await tds(['rows', 'Leads', '--columns', 'Name,Tags,Owner,Address', '--no-meta', '--excel', 'eu']);
    expect(eu.code, eu.stderr).toBe(0);
    expect(eu.stdout.startsWith('\ufeffName;Tags;Owner;Address\r\n')).toBe(true);
    expect(parseDelimited(eu.stdout, ';')).toEqual(expected);
    const semicolons = await tds(['rows', 'Leads', '--columns', 'Name,Tags', '--no-meta', '--delimiter', ';']);
    expect(semicolons.stdout.split('\n')[0]).toBe('Name;Tags');
    expect((await tds(['rows', 'Leads', '--excel', 'de'])).stderr).toContain('--excel takes us or eu, not "de"');
    expect((await tds(['rows', 'Leads', '--delimiter', '::'])).code).toBe(2);
  });
});

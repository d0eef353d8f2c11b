import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { resolveTable } from '../../src/http/resolve-table.js';
import { pickTable } from '../../src/records/table-ref.js';
import { TdsError } from '../../src/core/errors.js';
import { json, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { thrownBy } from '../helpers/thrown.js';
import { TABLES } from './client-fixtures.js';

const tables = TABLES.tables;
let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

const thrown = (fn: () => unknown): TdsError => thrownBy(TdsError, fn);

describe('pickTable', () => {
  it.each([
    ['t1', 't1'],
    ['Leads', 't1'],
    ['t3', 't3'],
  ])('%s → %s', (ref, id) => expect(pickTable(tables, ref).id).toBe(id));

  it('prefers an ID over a name', () => {
    const named = [...tables, { ...tables[0]!, id: 'x9', name: 't2' }];
    expect(pickTable(named, 't2').id).toBe('t2');
  });

  it('lists the IDs and workspaces of an ambiguous name (exit 2)', () => {
    const error = thrown(() => pickTable(tables, 'Contacts'));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('table name "Contacts" matches 2 tables: t2 (workspace "Sales"), t3 (workspace "Marketing")');
  });

  it('takes a name in any case when one table has it (exact first)', () => {
    expect(pickTable(tables, 'leads').id).toBe('t1');
    expect(pickTable(tables, 'LEADS').id).toBe('t1');
    const cased = [...tables, { ...tables[0]!, id: 't9', name: 'leads' }];
    expect(pickTable(cased, 'leads').id).toBe('t9');
    expect(pickTable(cased, 'Leads').id).toBe('t1');
    expect(thrown(() => pickTable(cased, 'LEADS')).exitCode).toBe(2);
    expect(thrown(() => pickTable(tables, 'contacts')).message).toContain('matches 2 tables');
  });

  it('is NOT_FOUND (exit 4) for an unknown reference, suggesting a near name', () => {
    const error = thrown(() => pickTable(tables, 'Leeds'));
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe('no table with ID or name "Leeds" in this organization');
    expect(error.hint).toBe('did you mean "Leads" (t1)?');
    expect(thrown(() => pickTable(tables, 'Payroll')).hint).toBeUndefined();
  });
});

describe('pickTable: a name as `tds tables` shows it, with its emoji or its shortcode', () => {
  const more = [
    ...tables,
    { ...tables[0]!, id: 't4', name: 'Fans', emoji: ':heart:' },
    { ...tables[0]!, id: 't5', name: 'Custom', emoji: ':not_a_known_code:' },
  ];

  it.each([
    ['🚀 Leads', 't1'],
    ['🚀Leads', 't1'],
    [':rocket: Leads', 't1'],
    [':rocket:Leads', 't1'],
    ['🚀\uFE0F Leads', 't1'],
    ['❤️ Fans', 't4'],
    ['❤ Fans', 't4'],
    [':heart: Fans', 't4'],
    [':heart:Fans', 't4'],
    [':not_a_known_code: Custom', 't5'],
  ])('%s → %s', (ref, id) => expect(pickTable(more, ref).id).toBe(id));

  it.each([
    ['🚀 leads', 't1'],
    [':ROCKET: leads', 't1'],
    ['fans', 't4'],
  ])('%s → %s ignoring case', (ref, id) => expect(pickTable(more, ref).id).toBe(id));

  it.each(['🚀  Leads', ':rocket: Lead', ':office: Leads', '🏢 Leads', 'rocket Leads', 'Leads 🚀', '🚀 Contacts'])(
    '%s is no table (exit 4)',
    (ref) => expect(thrown(() => pickTable(more, ref)).exitCode).toBe(4),
  );

  it('suggests the table a near reference with an emoji meant', () => {
    const error = thrown(() => pickTable(more, ':rocket: Leeds'));
    expect(error.hint).toContain('"Leads" (t1)');
  });

  it('keeps the ambiguity rule: a name that matches several tables, however written, lists their IDs (exit 2)', () => {
    const clash = [...more, { ...tables[2]!, id: 't6', name: '🚀 Leads', emoji: null }];
    const error = thrown(() => pickTable(clash, '🚀 Leads'));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('table name "🚀 Leads" matches 2 tables: t1 (workspace "Sales"), t6 (workspace "Marketing")');
    expect(pickTable(clash, 'Leads').id).toBe('t1');
    expect(pickTable(clash, ':rocket: Leads').id).toBe('t1');
  });
});

describe('resolveTable', () => {
  it('uses one GET /tables', async () => {
    server = await startScriptedServer(() => json(200, TABLES));
    const client = new ApiClient({ baseUrl: `${server.origin}/v1`, apiKey: 'k_123456' });
    try {
      expect((await resolveTable(client, 'Leads')).id).toBe('t1');
    } finally {
      await client.close();
    }
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/tables']);
  });
});

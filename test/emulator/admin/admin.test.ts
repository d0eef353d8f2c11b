import { describe, expect } from 'vitest';
import { type RunningEmulator } from '../../../src/emulator/index.js';
import type { Field, Row, Table } from '../../../src/service/index.js';
import { allRows, call, get, NOW, post, queryRows, tableInfo, emulatorOptions } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// The emulator-only admin routes under /_emulator: change the data directly (not part of the service).

const apiError = (statusCode: number, message: RegExp) => ({ statusCode, error: 'API Error', message: expect.stringMatching(message) });

describe('admin routes', () => {
  let emu: RunningEmulator;
  let salesId: string;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ actionDelayMs: 0 }))).emu;
    salesId = (await get(emu, '/workspaces')).body.workspaces[0].id;
  });

  const createDeals = () =>
    adminRoute<{ table: Table; fields: Field[]; webhookUrl?: string }>(emu, 'POST', '/tables', {
      workspace: 'Sales',
      name: 'Deals',
      emoji: ':moneybag:',
      fields: [
        { label: 'Title', type: 'text' },
        { label: 'Amount', type: 'number' },
        { label: 'Stage', type: 'select', options: [{ label: 'Open', value: 'open' }] },
        { label: 'Site', type: 'url' },
        { label: 'Host', type: 'action', action: { from: 'Site', derive: 'domain' } },
      ],
    });

  it('creates a table that the service routes then list, with its schema', async () => {
    const created = await createDeals();
    expect(created.status).toBe(201);
    const { table, fields } = created.body;
    expect(table).toEqual({
      id: expect.stringMatching(/^tbl_/),
      name: 'Deals',
      emoji: ':moneybag:',
      workspaceId: salesId,
      workspaceName: 'Sales',
      rowCount: 0,
      fieldCount: 5,
    });
    expect(created.body.webhookUrl).toBeUndefined();
    expect(fields.map((field) => [field.label, field.name, field.type])).toEqual([
      ['Title', 'title', 'text'],
      ['Amount', 'amount', 'number'],
      ['Stage', 'stage', 'select'],
      ['Site', 'site', 'url'],
      ['Host', 'host', 'action'],
    ]);
    expect((await get(emu, '/tables')).body.tables).toContainEqual(table);
    expect((await get(emu, `/tables/${table.id}/schema`)).body).toEqual({ table: { id: table.id, name: 'Deals' }, fields });
  });

  it('creates a webhook-fed table: Payload first, a webhook URL, mapped columns that fill in', async () => {
    const created = await adminRoute(emu, 'POST', '/tables', {
      workspace: salesId,
      name: 'Hooks',
      webhook: true,
      fields: [
        { label: 'Email', type: 'email', mapKey: 'contact.email' },
        { label: 'Domain', type: 'action', action: { from: 'Email', derive: 'domain' } },
        { label: 'Company', type: 'action', action: { dependsOn: 'Domain', derive: 'company' } },
      ],
    });
    expect(created.status).toBe(201);
    const [payload, email, domain, company] = created.body.fields as Field[];
    expect([payload!.label, payload!.type]).toEqual(['Payload', 'webhook']);
    expect(created.body.webhookUrl).toBe(emu.webhooks[created.body.table.id]);
    // 12 contacts: the seed's draws give most a domain and some none (failed, skipped or stopped)
    const contacts = Array.from({ length: 12 }, (_, i) => ({ contact: { email: `eve${i}@stark-industries.example` } }));
    expect(await post(emu, created.body.webhookUrl, contacts, { key: null })).toMatchObject({ status: 200 });
    emu.flushIntake();
    const rows = await allRows(emu, created.body.table.id);
    expect(rows.map((row) => row.cells[email!.id]!.value).sort()).toEqual(contacts.map(({ contact }) => contact.email).sort());
    const outcomes = rows.map((row) => [row.cells[domain!.id]!, row.cells[company!.id]!] as const);
    for (const [domainCell, companyCell] of outcomes) {
      // each ran to a final state: a domain derived from the email; the company from that domain, or skipped without one
      expect(['success', 'failed', 'skipped', 'stopped']).toContain(domainCell.status);
      expect(['success', 'failed', 'skipped', 'stopped']).toContain(companyCell.status);
      if (domainCell.status === 'success') expect(domainCell.value).toBe('stark-industries.example');
      else expect(companyCell.status).toBe('skipped');
      if (companyCell.status === 'success') expect(companyCell.value).toBe('Stark Industries');
    }
    expect(outcomes.some(([domainCell]) => domainCell.status === 'success')).toBe(true);
    expect(outcomes.some(([domainCell]) => domainCell.status !== 'success')).toBe(true);
  });

  it('adds rows by field id, label or name, with a creation time in the past; actions not given run', async () => {
    const deals = await tableInfo(emu, 'Deals');
    const reply = await adminRoute<{ rows: Row[] }>(emu, 'POST', `/tables/${deals.table.id}/rows`, {
      rows: [
        {
          cells: { Title: 'Old deal', amount: 5, [deals.id.stage!]: 'open', Site: 'https://www.acme.example' },
          createdAt: '2024-03-01T10:00:00Z',
        },
        { cells: { Title: 'Given', Host: { status: 'failed', errorMessage: 'by hand' } }, createdByUserId: 'usr_1' },
      ],
    });
    expect(reply.status).toBe(201);
    const [old, given] = reply.body.rows;
    expect(old).toMatchObject({ tableId: deals.table.id, createdAt: '2024-03-01T10:00:00.000Z', createdByUserId: null });
    expect(old!.cells[deals.id.amount!]).toEqual({ value: 5 });
    expect(['success', 'failed', 'skipped', 'stopped']).toContain(old!.cells[deals.id.host!]!.status);
    expect(Date.parse(old!.updatedAt)).toBeGreaterThan(Date.parse(old!.createdAt));
    expect(given!.cells[deals.id.host!]).toEqual({ value: null, status: 'failed', errorMessage: 'by hand' });
    expect(given!.createdByUserId).toBe('usr_1');
    expect(given!.createdAt).toBe(new Date(NOW).toISOString());
    const listed = await allRows(emu, deals.table.id);
    expect(listed.map((row) => row.id)).toEqual([given!.id, old!.id]);
    expect((await get(emu, '/tables')).body.tables.find((t: Table) => t.id === deals.table.id).rowCount).toBe(2);
  });

  it('updates cells (null clears one), moving updatedAt; deletes rows one by one or by ids', async () => {
    const deals = await tableInfo(emu, 'Deals');
    const [row] = (
      await adminRoute<{ rows: Row[] }>(emu, 'POST', `/tables/${deals.table.id}/rows`, {
        rows: [{ cells: { Title: 'Edit me', Amount: 1 } }],
      })
    ).body.rows;
    const patched = await adminRoute<{ row: Row }>(emu, 'PATCH', `/tables/${deals.table.id}/rows/${row!.id}`, {
      cells: { Amount: 2, Title: null, Host: { status: 'success', value: 'x.example' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.row.cells).toEqual({
      [deals.id.amount!]: { value: 2 },
      [deals.id.host!]: { value: 'x.example', status: 'success' },
    });
    expect(patched.body.row.updatedAt > row!.updatedAt).toBe(true);
    expect((await allRows(emu, deals.table.id)).find((r) => r.id === row!.id)).toEqual(patched.body.row);

    expect((await adminRoute(emu, 'DELETE', `/tables/${deals.table.id}/rows/${row!.id}`)).body).toEqual({ deleted: 1 });
    expect((await allRows(emu, deals.table.id)).map((r) => r.id)).not.toContain(row!.id);
    const ids = (await allRows(emu, deals.table.id)).map((r) => r.id);
    expect((await adminRoute(emu, 'POST', `/tables/${deals.table.id}/rows/delete`, { ids: [...ids, 'row_nope'] })).body).toEqual({
      deleted: ids.length,
    });
    expect(await allRows(emu, deals.table.id)).toEqual([]);
  });

  it('adds, relabels, renames, retypes and removes fields; the schema and the rows follow', async () => {
    const deals = await tableInfo(emu, 'Deals');
    const path = `/tables/${deals.table.id}`;
    await adminRoute(emu, 'POST', `${path}/rows`, { rows: [{ cells: { Title: 'T', Amount: 7, Site: 'https://a.example' } }] });
    const added = await adminRoute<{ field: Field }>(emu, 'POST', `${path}/fields`, {
      label: 'Tags',
      type: 'multi_select',
      options: [{ label: 'Hot', value: 'hot' }],
    });
    expect(added.status).toBe(201);
    expect(added.body.field).toEqual({
      id: expect.stringMatching(/^fld_/),
      name: 'tags',
      label: 'Tags',
      type: 'multi_select',
      options: [{ label: 'Hot', value: 'hot' }],
      isSystem: false,
    });
    const amount = deals.id.amount!;
    const retyped = await adminRoute<{ field: Field }>(emu, 'PATCH', `${path}/fields/${amount}`, {
      label: 'Value',
      name: 'value',
      type: 'text',
    });
    expect(retyped.body.field).toEqual({ id: amount, name: 'value', label: 'Value', type: 'text', options: null, isSystem: false });
    expect((await adminRoute(emu, 'DELETE', `${path}/fields/${deals.id.site}`)).body).toEqual({ deleted: 1 });

    const schema = (await get(emu, `${path}/schema`)).body.fields as Field[];
    expect(schema.map((field) => [field.label, field.type])).toEqual([
      ['Title', 'text'],
      ['Value', 'text'],
      ['Stage', 'select'],
      ['Host', 'action'],
      ['Tags', 'multi_select'],
    ]);
    const [row] = await allRows(emu, deals.table.id);
    expect(row!.cells[amount]).toEqual({ value: 7 }); // the stored number stays as it was
    expect(row!.cells[deals.id.site!]).toBeUndefined();
    // Filters follow the new type (text operators on Value) and refuse the removed column.
    expect(await queryRows(emu, deals.table.id, { rules: [{ fieldId: amount, operator: 'contains', value: '7' }] })).toHaveLength(1);
    const removed = await post(emu, `${path}/rows/query`, { filters: { rules: [{ fieldId: deals.id.site, operator: 'notNull' }] } });
    expect(removed.body).toEqual(apiError(400, /unknown fieldId/));
    expect((await get(emu, '/tables')).body.tables.find((t: Table) => t.id === deals.table.id).fieldCount).toBe(5);
  });

  it('moves the clock: creation times, updatedAt and date presets follow the offset', async () => {
    expect((await adminRoute(emu, 'GET', '/clock')).body).toEqual({ now: new Date(NOW).toISOString(), offsetMs: 0 });
    const day = 86_400_000;
    expect((await adminRoute(emu, 'POST', '/clock', { advanceMs: 10 * day })).body).toEqual({
      now: new Date(NOW + 10 * day).toISOString(),
      offsetMs: 10 * day,
    });
    expect((await adminRoute(emu, 'POST', '/clock', { advanceMs: day })).body.offsetMs).toBe(11 * day);
    const leads = await tableInfo(emu, 'Leads');
    const [row] = (
      await adminRoute<{ rows: Row[] }>(emu, 'POST', `/tables/${leads.table.id}/rows`, { rows: [{ cells: { Name: 'Future' } }] })
    ).body.rows;
    expect(row!.createdAt).toBe(new Date(NOW + 11 * day).toISOString());
    const today = await queryRows(emu, leads.table.id, {
      rules: [{ fieldId: leads.id.created_at, operator: 'isDatePreset', value: 'today' }],
    });
    expect(today.map((r) => r.id)).toEqual([row!.id]);
    expect((await adminRoute(emu, 'POST', '/clock', { offsetMs: 0 })).body).toEqual({ now: new Date(NOW).toISOString(), offsetMs: 0 });
    expect(
      await queryRows(emu, leads.table.id, { rules: [{ fieldId: leads.id.created_at, operator: 'isDatePreset', value: 'today' }] }),
    ).toEqual([]);
    await adminRoute(emu, 'DELETE', `/tables/${leads.table.id}/rows/${row!.id}`);
  });

  it('is not part of the service: no key needed, nothing in the request log', async () => {
    const before = emu.requestLog.length;
    expect((await adminRoute(emu, 'GET', '/clock')).status).toBe(200);
    expect((await call(emu, 'GET', `${emu.baseUrl.replace('/v1', '')}/_emulator/clock`, { key: 'wrong' })).status).toBe(200);
    expect(emu.requestLog.length).toBe(before);
    expect((await adminRoute(emu, 'GET', '/nope')).body).toEqual(apiError(404, /No route GET \/_emulator\/nope/));
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAllowed, startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import type { Field, Row, RowsPage, Table } from '../../../src/service/index.js';
import { admin, allRows, call, get, NOW, post, queryRows, start, tableInfo } from '../helpers.js';

// The emulator-only admin routes under /_emulator: change the data directly (not part of the service).

const apiError = (statusCode: number, message: RegExp) => ({ statusCode, error: 'API Error', message: expect.stringMatching(message) });

describe('admin routes', () => {
  let emu: RunningEmulator;
  let salesId: string;
  beforeAll(async () => {
    emu = await start({ actionDelayMs: 0 });
    salesId = (await get(emu, '/workspaces')).body.workspaces[0].id;
  });
  afterAll(() => emu.close());

  const createDeals = () =>
    admin<{ table: Table; fields: Field[]; webhookUrl?: string }>(emu, 'POST', '/tables', {
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
    const created = await admin(emu, 'POST', '/tables', {
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
    expect(await post(emu, created.body.webhookUrl, { contact: { email: 'eve@stark-industries.example' } }, { key: null })).toMatchObject({
      status: 200,
    });
    emu.flushIntake();
    const [row] = await allRows(emu, created.body.table.id);
    expect(row!.cells[email!.id]).toEqual({ value: 'eve@stark-industries.example' });
    expect(['success', 'failed', 'skipped', 'stopped']).toContain(row!.cells[domain!.id]!.status);
    if (row!.cells[domain!.id]!.status === 'success') expect(row!.cells[company!.id]!.status).not.toBe('skipped');
  });

  it('adds rows by field id, label or name, with a creation time in the past; actions not given run', async () => {
    const deals = await tableInfo(emu, 'Deals');
    const reply = await admin<{ rows: Row[] }>(emu, 'POST', `/tables/${deals.table.id}/rows`, {
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
      await admin<{ rows: Row[] }>(emu, 'POST', `/tables/${deals.table.id}/rows`, { rows: [{ cells: { Title: 'Edit me', Amount: 1 } }] })
    ).body.rows;
    const patched = await admin<{ row: Row }>(emu, 'PATCH', `/tables/${deals.table.id}/rows/${row!.id}`, {
      cells: { Amount: 2, Title: null, Host: { status: 'success', value: 'x.example' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.row.cells).toEqual({
      [deals.id.amount!]: { value: 2 },
      [deals.id.host!]: { value: 'x.example', status: 'success' },
    });
    expect(patched.body.row.updatedAt > row!.updatedAt).toBe(true);
    expect((await allRows(emu, deals.table.id)).find((r) => r.id === row!.id)).toEqual(patched.body.row);

    expect((await admin(emu, 'DELETE', `/tables/${deals.table.id}/rows/${row!.id}`)).body).toEqual({ deleted: 1 });
    expect((await allRows(emu, deals.table.id)).map((r) => r.id)).not.toContain(row!.id);
    const ids = (await allRows(emu, deals.table.id)).map((r) => r.id);
    expect((await admin(emu, 'POST', `/tables/${deals.table.id}/rows/delete`, { ids: [...ids, 'row_nope'] })).body).toEqual({
      deleted: ids.length,
    });
    expect(await allRows(emu, deals.table.id)).toEqual([]);
  });

  it('adds, relabels, renames, retypes and removes fields; the schema and the rows follow', async () => {
    const deals = await tableInfo(emu, 'Deals');
    const path = `/tables/${deals.table.id}`;
    await admin(emu, 'POST', `${path}/rows`, { rows: [{ cells: { Title: 'T', Amount: 7, Site: 'https://a.example' } }] });
    const added = await admin<{ field: Field }>(emu, 'POST', `${path}/fields`, {
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
    const retyped = await admin<{ field: Field }>(emu, 'PATCH', `${path}/fields/${amount}`, {
      label: 'Value',
      name: 'value',
      type: 'text',
    });
    expect(retyped.body.field).toEqual({ id: amount, name: 'value', label: 'Value', type: 'text', options: null, isSystem: false });
    expect((await admin(emu, 'DELETE', `${path}/fields/${deals.id.site}`)).body).toEqual({ deleted: 1 });

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
    expect((await admin(emu, 'GET', '/clock')).body).toEqual({ now: new Date(NOW).toISOString(), offsetMs: 0 });
    const day = 86_400_000;
    expect((await admin(emu, 'POST', '/clock', { advanceMs: 10 * day })).body).toEqual({
      now: new Date(NOW + 10 * day).toISOString(),
      offsetMs: 10 * day,
    });
    expect((await admin(emu, 'POST', '/clock', { advanceMs: day })).body.offsetMs).toBe(11 * day);
    const leads = await tableInfo(emu, 'Leads');
    const [row] = (await admin<{ rows: Row[] }>(emu, 'POST', `/tables/${leads.table.id}/rows`, { rows: [{ cells: { Name: 'Future' } }] }))
      .body.rows;
    expect(row!.createdAt).toBe(new Date(NOW + 11 * day).toISOString());
    const today = await queryRows(emu, leads.table.id, {
      rules: [{ fieldId: leads.id.created_at, operator: 'isDatePreset', value: 'today' }],
    });
    expect(today.map((r) => r.id)).toEqual([row!.id]);
    expect((await admin(emu, 'POST', '/clock', { offsetMs: 0 })).body).toEqual({ now: new Date(NOW).toISOString(), offsetMs: 0 });
    expect(
      await queryRows(emu, leads.table.id, { rules: [{ fieldId: leads.id.created_at, operator: 'isDatePreset', value: 'today' }] }),
    ).toEqual([]);
    await admin(emu, 'DELETE', `/tables/${leads.table.id}/rows/${row!.id}`);
  });

  it.each(
    (
      [
        ['POST', '/tables/tbl_nope/rows', { rows: [{ cells: {} }] }, 404, /Table tbl_nope not found/],
        ['PATCH', '/tables/tbl_nope/rows/r', { cells: {} }, 404, /Table tbl_nope not found/],
        ['DELETE', '/tables/tbl_nope/fields/f', undefined, 404, /Table tbl_nope not found/],
        ['POST', '/tables', { workspace: 'Nowhere', name: 'X', fields: [] }, 400, /no workspace "Nowhere"/],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'string' }] }, 400, /type must be one of: text/],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'webhook' }] }, 400, /webhook column/],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'text', mapKey: 'a' }] }, 400, /webhook-fed/],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'text', options: [] }] }, 400, /only select/],
        [
          'POST',
          '/tables',
          { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'text', action: {} }] },
          400,
          /only action columns/,
        ],
        [
          'POST',
          '/tables',
          { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'action', action: { derive: 'x' } }] },
          400,
          /derive must be/,
        ],
        [
          'POST',
          '/tables',
          { workspace: 'Sales', name: 'X', fields: [{ label: 'A', type: 'action', action: { dependsOn: 'A' } }] },
          400,
          /cycle/,
        ],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', fields: [], color: 'red' }, 400, /unknown member "color"/],
        ['POST', '/tables', { workspace: 'Sales', name: 'X', emoji: 'rocket', fields: [] }, 400, /emoji/],
        ['POST', '/tables', '{"workspace": ', 400, /not valid JSON/],
        ['POST', '/tables', [1], 400, /body must be a JSON object/],
        ['POST', '/clock', { advanceMs: 1, offsetMs: 2 }, 400, /exactly one/],
        ['POST', '/clock', { advanceMs: 1.5 }, 400, /whole number/],
        ['GET', '/tables', undefined, 405, /Use POST/],
      ] as Array<[string, string, unknown, number, RegExp]>
    ).map(([method, path, body, status, message]) => ({ method, path, body, status, message })),
  )('$method $path: $status $message, in the service error shape', async ({ method, path, body, status, message }) => {
    const reply = await admin(emu, method, path, body);
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual(apiError(status, message));
  });

  it('refuses bad rows, cells, fields and ids with 400, unknown rows and fields with 404', async () => {
    const leads = await tableInfo(emu, 'Leads');
    const path = `/tables/${leads.table.id}`;
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', `${path}/rows`, { rows: [] }, 400, /1 to/],
      ['POST', `${path}/rows`, { rows: [{ cells: { Nope: 1 } }] }, 400, /no column "Nope"/],
      ['POST', `${path}/rows`, { rows: [{ cells: { Email: 'x' } }] }, 400, /label "Email" is shared by columns/],
      ['POST', `${path}/rows`, { rows: [{ cells: { Name: { status: 'success' } } }] }, 400, /only cells of action columns/],
      ['POST', `${path}/rows`, { rows: [{ cells: { Enrich: { status: 'done' } } }] }, 400, /status must be one of/],
      ['POST', `${path}/rows`, { rows: [{ createdAt: 'yesterday' }] }, 400, /createdAt must be an ISO 8601 date-time/],
      ['POST', `${path}/rows`, { rows: [{ id: 'mine' }] }, 400, /unknown member "id"/],
      ['PATCH', `${path}/rows/row_nope`, { cells: { Name: 'x' } }, 404, /Row row_nope not found/],
      ['PATCH', `${path}/rows/row_nope`, {}, 400, /body.cells is required/],
      ['DELETE', `${path}/rows/row_nope`, undefined, 404, /Row row_nope not found/],
      ['POST', `${path}/rows/delete`, { ids: 'all' }, 400, /body.ids is required/],
      ['POST', `${path}/fields`, { label: 'Tier', type: 'enum' }, 400, /type must be one of/],
      ['POST', `${path}/fields`, { label: 'X', type: 'text', name: 'email' }, 400, /name of another column/],
      ['POST', `${path}/fields`, { type: 'text' }, 400, /label must be a non-empty string/],
      ['PATCH', `${path}/fields/fld_nope`, { label: 'X' }, 404, /Field fld_nope not found/],
      ['PATCH', `${path}/fields/${leads.id.name}`, {}, 400, /changes nothing/],
      ['PATCH', `${path}/fields/${leads.id.name}`, { type: 'bogus' }, 400, /type must be one of/],
      ['PATCH', `${path}/fields/${leads.id.name}`, { type: 'webhook' }, 400, /webhook column/],
      ['PATCH', `${path}/fields/${leads.id.created_at}`, { type: 'text' }, 400, /system column/],
      ['PATCH', `${path}/fields/${leads.id.name}`, { options: [{ label: 'A', value: 'a' }] }, 400, /only select/],
      ['DELETE', `${path}/fields/fld_nope`, undefined, 404, /Field fld_nope not found/],
    ];
    for (const [method, route, body, status, message] of cases) {
      const reply = await admin(emu, method, route, body);
      expect([method, route, reply.status, reply.body]).toEqual([method, route, status, apiError(status, message)]);
    }
    expect((await tableInfo(emu, 'Leads')).table.rowCount).toBe(250);
  });

  it('is not part of the service: no key needed, nothing in the request log', async () => {
    const before = emu.requestLog.length;
    expect((await admin(emu, 'GET', '/clock')).status).toBe(200);
    expect((await call(emu, 'GET', `${emu.baseUrl.replace('/v1', '')}/_emulator/clock`, { key: 'wrong' })).status).toBe(200);
    expect(emu.requestLog.length).toBe(before);
    expect((await admin(emu, 'GET', '/nope')).body).toEqual(apiError(404, /No route GET \/_emulator\/nope/));
  });
});

describe('admin access', () => {
  it.each([
    ['127.0.0.1', false, true],
    ['127.1.2.3', false, true],
    ['::1', false, true],
    ['localhost', false, true],
    ['0.0.0.0', false, false],
    ['::', false, false],
    ['192.168.1.5', false, false],
    ['0.0.0.0', true, true],
  ])('host %s with admin %s: %s', (host, flag, allowed) => {
    expect(adminAllowed(host, flag)).toBe(allowed);
  });

  it('answers 404 as an unknown route on a non-loopback bind, unless admin is set', async () => {
    for (const flag of [false, true]) {
      const emu = await startEmulator({ host: '0.0.0.0', port: 0, rateLimits: false, admin: flag });
      const local = { ...emu, baseUrl: emu.baseUrl.replace('0.0.0.0', '127.0.0.1') };
      try {
        const reply = await admin(local, 'POST', '/clock', { advanceMs: 1 });
        if (flag) expect(reply.status).toBe(200);
        else expect(reply.body).toEqual(apiError(404, /No route POST \/_emulator\/clock/));
        expect((await admin(local, 'GET', '/requests')).status).toBe(200);
      } finally {
        await emu.close();
      }
    }
  });
});

describe('admin changes and --data', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tds-emulator-admin-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('saves tables, rows, fields, the clock and changes of the generated table, and loads them', async () => {
    const file = join(dir, 'state.json');
    const first = await start({ dataFile: file, actionDelayMs: 60_000, rows: 2_000 });
    const created = await admin(first, 'POST', '/tables', {
      workspace: 'Marketing',
      name: 'Saved',
      webhook: true,
      fields: [
        { label: 'Email', type: 'email', mapKey: 'email' },
        { label: 'Domain', type: 'action', action: { from: 'Email', derive: 'domain' } },
      ],
    });
    const tableId: string = created.body.table.id;
    await admin(first, 'POST', `/tables/${tableId}/rows`, {
      rows: [{ cells: { Email: 'a@b.example' }, createdAt: '2025-01-01T00:00:00Z' }],
    });
    await admin(first, 'POST', `/tables/${tableId}/fields`, { label: 'Score', type: 'number' });
    const note = (await admin(first, 'POST', `/tables/${tableId}/fields`, { label: 'Note', type: 'text' })).body.field.id as string;
    await admin(first, 'POST', `/tables/${tableId}/rows`, { rows: [{ cells: { Note: 'gone with its column' } }] });
    await admin(first, 'DELETE', `/tables/${tableId}/fields/${note}`);
    await admin(first, 'POST', '/clock', { offsetMs: 3_600_000 });
    const bench = await tableInfo(first, 'Generated', 'Bench');
    const [newest, second] = (await get<RowsPage>(first, `/tables/${bench.table.id}/rows?limit=2`)).body.rows;
    await admin(first, 'DELETE', `/tables/${bench.table.id}/rows/${newest!.id}`);
    await admin(first, 'PATCH', `/tables/${bench.table.id}/rows/${second!.id}`, { cells: { Amount: -1 } });
    await admin(first, 'POST', `/tables/${bench.table.id}/rows`, { rows: [{ cells: { Name: 'Added' } }] });
    await admin(first, 'PATCH', `/tables/${bench.table.id}/fields/${bench.id.notes}`, { label: 'Remarks' });
    const tables = (await get(first, '/tables')).body.tables;
    const savedRows = await allRows(first, tableId);
    const benchPage = (await get<RowsPage>(first, `/tables/${bench.table.id}/rows?limit=5`)).body.rows;
    expect(savedRows[0]!.cells[created.body.fields[2].id]!.status).toBe('queued');
    await first.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(note);
    expect(text).not.toContain('gone with its column');

    const second2 = await start({ dataFile: file });
    try {
      expect((await get(second2, '/tables')).body.tables).toEqual(tables);
      const loaded = await allRows(second2, tableId);
      expect(loaded.map((row) => row.id)).toEqual(savedRows.map((row) => row.id));
      // Saving finished the action that was still queued.
      expect(['success', 'failed', 'skipped', 'stopped']).toContain(loaded[0]!.cells[created.body.fields[2].id]!.status);
      expect((await get(second2, `/tables/${tableId}/schema`)).body.fields.map((field: Field) => field.label)).toEqual([
        'Payload',
        'Email',
        'Domain',
        'Score',
      ]);
      expect(second2.webhooks[tableId]).toMatch(/\/v1\/webhook\//);
      expect((await admin(second2, 'GET', '/clock')).body.offsetMs).toBe(3_600_000);
      expect((await get<RowsPage>(second2, `/tables/${bench.table.id}/rows?limit=5`)).body.rows).toEqual(benchPage);
      const benchSchema = (await get(second2, `/tables/${bench.table.id}/schema`)).body.fields as Field[];
      expect(benchSchema.find((field) => field.id === bench.id.notes)!.label).toBe('Remarks');
      expect(benchPage[0]!.cells[bench.id.name!]!.value).toBe('Added');
      expect(benchPage.find((row) => row.id === second!.id)!.cells[bench.id.amount!]).toEqual({ value: -1 });
      expect(benchPage.map((row) => row.id)).not.toContain(newest!.id);
    } finally {
      await second2.close();
    }
  });
});

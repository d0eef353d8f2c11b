import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { COLUMN_TYPES } from '../../../src/service/index.js';
import { call, get, post, tableInfo, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md sections 4.1-4.3 (metadata routes) and 7 (error shape on unknown routes and methods).

describe('routes', () => {
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions())).emu;
  });

  it.each(['/nope', '/workspaces/', '/tables/x/rows/other', '/tables/x', '/webhooks/x'])(
    'gives 404 in the error shape on %s',
    async (path) => {
      const reply = await get(emu, path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ statusCode: 404, error: 'API Error', message: expect.any(String) });
    },
  );

  it('gives 404 outside /v1', async () => {
    const reply = await get(emu, emu.baseUrl.replace('/v1', '/v2/workspaces'));
    expect(reply.status).toBe(404);
  });

  it.each([
    ['DELETE', '/workspaces'],
    ['POST', '/tables'],
    ['PUT', '/tables/x/rows'],
    ['GET', '/tables/x/rows/query'],
  ])('gives 405 with Allow on %s %s', async (method, path) => {
    const reply = await call(emu, method, path);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBeTruthy();
    expect(reply.body).toMatchObject({ statusCode: 405, error: 'API Error' });
  });

  it('lists workspaces with table counts', async () => {
    const { body } = await get(emu, '/workspaces');
    expect(body.total).toBe(3);
    expect(body.workspaces).toEqual([
      { id: expect.any(String), name: 'Sales', tableCount: 4 },
      { id: expect.any(String), name: 'Marketing', tableCount: 4 },
      { id: expect.any(String), name: 'People Ops', tableCount: 1 },
    ]);
  });

  it('lists tables, all or of one workspace, with every member of the spec', async () => {
    const all = (await get(emu, '/tables')).body;
    expect(all.total).toBe(all.tables.length);
    expect(all.tables.map((t: { name: string }) => t.name)).toEqual([
      'Leads',
      'Companies',
      'Contacts',
      'Edge Cases',
      'Contacts',
      'Signups',
      'Inbox',
      'Empty',
      'Salaries',
    ]);
    for (const table of all.tables) {
      expect(Object.keys(table).sort()).toEqual(['emoji', 'fieldCount', 'id', 'name', 'rowCount', 'workspaceId', 'workspaceName']);
    }
    const leads = all.tables[0];
    expect(leads).toMatchObject({ name: 'Leads', emoji: ':rocket:', workspaceName: 'Sales', rowCount: 250, fieldCount: 17 });
    const marketing = (await get(emu, `/tables?workspaceId=${all.tables[5].workspaceId}`)).body;
    expect(marketing.tables.map((t: { name: string }) => t.name)).toEqual(['Contacts', 'Signups', 'Inbox', 'Empty']);
    expect((await get(emu, '/tables?workspaceId=unknown')).body).toEqual({ tables: [], total: 0 });
  });

  it.each([
    ['/tables?workspaceId=', /workspaceId/],
    ['/tables?workspace=x', /unknown query parameter "workspace"/],
    ['/tables?workspaceId=a&workspaceId=b', /more than once/],
    ['/workspaces?limit=5', /unknown query parameter/],
    ['/tables//schema', /tableId/],
  ])('gives 400 on %s', async (path, message) => {
    const reply = await get(emu, path);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ statusCode: 400, error: 'API Error', message: expect.stringMatching(message) });
  });

  it('serves the schema of Leads with a column of every type', async () => {
    const { table, fields } = await tableInfo(emu, 'Leads');
    const { body } = await get(emu, `/tables/${table.id}/schema`);
    expect(body.table).toEqual({ id: table.id, name: 'Leads' });
    for (const field of fields) expect(Object.keys(field).sort()).toEqual(['id', 'isSystem', 'label', 'name', 'options', 'type']);
    const types = new Set(fields.map((field) => field.type));
    for (const type of COLUMN_TYPES.filter((t) => t !== 'webhook')) expect(types).toContain(type);
    expect(fields.filter((field) => field.label === 'Email').map((field) => [field.name, field.type])).toEqual([
      ['email', 'email'],
      ['email_2', 'text'],
    ]);
    const stage = fields.find((field) => field.label === 'Stage')!;
    expect(stage.options).toContainEqual({ label: 'Closed Won', value: 'closed_won' });
    expect(fields.find((field) => field.label === 'Name')!.options).toBeNull();
    expect(fields.filter((field) => field.isSystem).map((field) => [field.label, field.type])).toEqual([['Created At', 'date']]);
  });

  it('uses opaque ids that sometimes contain - or _', async () => {
    const { body } = await get(emu, '/tables');
    const ids: string[] = body.tables.map((t: { id: string }) => t.id);
    const leads = await tableInfo(emu, 'Leads');
    ids.push(...leads.fields.map((field) => field.id));
    ids.push(...(await get(emu, `/tables/${leads.table.id}/rows`)).body.rows.map((row: { id: string }) => row.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.includes('-'))).toBe(true);
    expect(ids.some((id) => id.includes('_', 4))).toBe(true);
  });

  it('serves the webhook URL only for POST and HEAD, with webhook-style errors', async () => {
    const url = Object.values(emu.webhooks)[0]!;
    const reply = await call(emu, 'GET', url, { key: null });
    expect(reply.status).toBe(405);
    expect(reply.body).toMatchObject({ statusCode: 405, error: 'Method Not Allowed' });
    const unknown = await post(emu, `${emu.baseUrl}/webhook/not-a-webhook`, { a: 1 }, { key: null });
    expect(unknown.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String) });
  });
});

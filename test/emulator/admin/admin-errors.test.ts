import { describe, expect } from 'vitest';
import { type RunningEmulator } from '../../../src/emulator/index.js';

import { tableInfo, emulatorOptions } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// The admin routes refuse what they cannot do in the service's error shape: 400 for bad input, 404 for
// what is not there, 405 for a wrong method.

const apiError = (statusCode: number, message: RegExp) => ({ statusCode, error: 'API Error', message: expect.stringMatching(message) });

describe('admin routes: errors', () => {
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ actionDelayMs: 0 }))).emu;
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
    const reply = await adminRoute(emu, method, path, body);
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
      const reply = await adminRoute(emu, method, route, body);
      expect([method, route, reply.status, reply.body]).toEqual([method, route, status, apiError(status, message)]);
    }
    expect((await tableInfo(emu, 'Leads')).table.rowCount).toBe(250);
  });
});

import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { get, tableByName, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md section 5 (authentication) and the 401/402/404 rows of section 7.

describe('authentication', () => {
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions())).emu;
  });

  it('reads with the bearer header', async () => {
    const reply = await get(emu, '/workspaces');
    expect(reply.status).toBe(200);
    expect(reply.body.workspaces.map((w: { name: string }) => w.name)).toEqual(['Sales', 'Marketing', 'People Ops']);
  });

  it.each([
    ['missing', null, {}],
    ['wrong', 'tds_demo_acme_wrong', {}],
    ['empty bearer', null, { authorization: 'Bearer ' }],
    ['not bearer', null, { authorization: 'Basic dXNlcjpwYXNz' }],
    ['key without scheme', null, { authorization: 'tds_demo_acme_7Kq2xV9mPz4LwR8n' }],
  ] as const)('refuses a %s key with 401 in the error shape', async (_name, key, headers) => {
    const reply = await get(emu, '/workspaces', { key, headers });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ statusCode: 401, error: 'API Error', message: expect.any(String) });
  });

  it.each(['api_key', 'apiKey', 'key', 'token', 'access_token', 'anything'])(
    'refuses a valid key in the query string (%s) even without a header',
    async (name) => {
      const reply = await get(emu, `/workspaces?${name}=${emu.apiKey}`, { key: null });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/query string/);
    },
  );

  it('refuses a valid key sent as a query parameter name with 401, never echoing or logging it', async () => {
    const reply = await get(emu, `/workspaces?${emu.apiKey}`);
    expect(reply.status).toBe(401);
    expect(reply.body.message).toMatch(/query string/);
    expect(reply.text).not.toContain(emu.apiKey);
    expect((await get(emu, `/tables?${encodeURIComponent(emu.apiKey)}=1`, { key: null })).status).toBe(401);
    expect(JSON.stringify(emu.requestLog.slice(-2))).not.toContain(emu.apiKey);
  });

  it('refuses a key in the query string even beside a valid header', async () => {
    const reply = await get(emu, `/workspaces?api_key=${emu.apiKey}`);
    expect(reply.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    expect((await get(emu, '/workspaces', { key: null, headers: { authorization: `bearer ${emu.apiKey}` } })).status).toBe(200);
  });

  it('reads the private workspace with the organization key', async () => {
    const salaries = await tableByName(emu, 'Salaries');
    expect(salaries.workspaceName).toBe('People Ops');
    expect((await get(emu, `/tables/${salaries.id}/rows`)).body.rows).toHaveLength(15);
  });

  it('gives 404 on a table of another organization, and each key sees only its own', async () => {
    const globexKey = emu.apiKeys.Globex!;
    const accounts = await tableByName(emu, 'Accounts', 'Globex HQ', globexKey);
    expect((await get(emu, `/tables/${accounts.id}/rows`, { key: globexKey })).status).toBe(200);
    for (const path of [`/tables/${accounts.id}/rows`, `/tables/${accounts.id}/schema`]) {
      const reply = await get(emu, path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ statusCode: 404, error: 'API Error', message: expect.any(String) });
    }
    const mine = await get(emu, '/tables', { key: globexKey });
    expect(mine.body.tables.map((t: { name: string }) => t.name)).toEqual(['Accounts']);
    expect((await get(emu, `/tables?workspaceId=${accounts.workspaceId}`)).body).toEqual({ tables: [], total: 0 });
  });
});

describe('a paused subscription', () => {
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ paused: true }))).emu;
  });

  it('gives 402 on every key endpoint of the first organization only', async () => {
    const globexKey = emu.apiKeys.Globex!;
    const accounts = await tableByName(emu, 'Accounts', undefined, globexKey);
    for (const path of ['/workspaces', '/tables', `/tables/${accounts.id}/schema`]) {
      const reply = await get(emu, path);
      expect(reply.status).toBe(402);
      expect(reply.body).toEqual({ statusCode: 402, error: 'API Error', message: expect.stringMatching(/paused/) });
    }
    expect((await get(emu, '/workspaces', { key: globexKey })).status).toBe(200);
  });

  it('still gives 401 for a wrong key', async () => {
    expect((await get(emu, '/workspaces', { key: 'nope' })).status).toBe(401);
  });

  it('orders 401 before 402 before 404 before 400', async () => {
    const accounts = await tableByName(emu, 'Accounts', undefined, emu.apiKeys.Globex!);
    const path = `/tables/${accounts.id}/rows?limit=0`; // another organization's table, and a bad limit
    expect((await get(emu, path, { key: 'nope' })).status).toBe(401);
    expect((await get(emu, path)).status).toBe(402);
    expect((await get(emu, path, { key: emu.apiKeys.Globex! })).status).toBe(400);
    expect((await get(emu, '/tables/tbl_unknown/rows?limit=0', { key: emu.apiKeys.Globex! })).status).toBe(404);
  });
});

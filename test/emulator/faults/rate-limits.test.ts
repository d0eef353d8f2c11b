import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { RATE_LIMITS } from '../../../src/service/index.js';
import { RATE_SCALE } from '../../helpers/rate-scale.js';
import { call, get, tableByName, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md section 8: sliding windows per organization / IP+key / IP, retry-after in service seconds.
// The windows run on a clock of the test's own (the emulator's rateLimitNow): it stands still during a
// burst, so every request of the burst falls in one window however slow the machine, and moves only when
// the test moves it. At the suite's rate scale a one-minute window lasts 600 ms of that clock.

const SCALE = RATE_SCALE;
/** The longest window (a minute of the service) on the test's clock. */
const LONGEST_WINDOW_MS = Math.max(...Object.values(RATE_LIMITS).map((limit) => limit.perMs)) / SCALE;

describe('rate limits (scaled)', () => {
  let emu: RunningEmulator;
  let clock = 0;
  // one emulator for the file's limited tests: each test starts a longest window later, with every window empty
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ rateLimits: true, rateScale: SCALE, rateLimitNow: () => clock }))).emu;
  });
  it.beforeEach(() => {
    clock += LONGEST_WINDOW_MS;
  });

  const burst = async (n: number, send: () => Promise<{ status: number }>) =>
    (await Promise.all(Array.from({ length: n }, send))).map((r) => r.status);

  it('allows 60 row reads a minute per organization, then 429 with retry-after in service seconds', async () => {
    const rowsPath = `/tables/${(await tableByName(emu, 'Contacts', 'Sales')).id}/rows?limit=1`;
    const statuses = await burst(RATE_LIMITS.rows.requests, () => get(emu, rowsPath));
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await get(emu, rowsPath);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ statusCode: 429, error: 'API Error', message: expect.stringMatching(/60 row reads/) });
    // the burst came at one moment of the windows' clock: its oldest read leaves the window a whole minute later
    expect(refused.headers['retry-after']).toBe('60');
    // the other bucket and the other organization are not affected
    expect((await get(emu, '/workspaces')).status).toBe(200);
    const globex = await tableByName(emu, 'Accounts', undefined, emu.apiKeys.Globex!);
    expect((await get(emu, `/tables/${globex.id}/rows`, { key: emu.apiKeys.Globex! })).status).toBe(200);
    // a moment short of retry-after (scaled) the window is still full; at retry-after a slot is free
    const retryAfterMs = (60 * 1000) / SCALE;
    clock += retryAfterMs - 1;
    expect((await get(emu, rowsPath)).status).toBe(429);
    clock += 1;
    expect((await get(emu, rowsPath)).status).toBe(200);
  });

  it('allows 300 metadata reads a minute per organization', async () => {
    const statuses = await burst(RATE_LIMITS.metadata.requests, () => get(emu, '/workspaces'));
    expect(statuses.filter((status) => status === 200)).toHaveLength(300);
    const refused = await get(emu, '/tables');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
  });

  it('counts missing or wrong keys per IP and key', async () => {
    const statuses = await burst(RATE_LIMITS.badKey.requests, () => get(emu, '/workspaces', { key: 'wrong-1' }));
    expect(statuses.every((status) => status === 401)).toBe(true);
    const refused = await get(emu, '/workspaces', { key: 'wrong-1' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get(emu, '/workspaces', { key: 'wrong-2' })).status).toBe(401);
  });

  it('allows 100 webhook requests a second per IP, then 429 with retry-after 1', async () => {
    const url = Object.values(emu.webhooks)[0]!;
    const replies = await Promise.all(Array.from({ length: 110 }, () => call(emu, 'HEAD', url, { key: null })));
    const refused = replies.filter((reply) => reply.status === 429);
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(100);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.headers['retry-after']).toBe('1');
  });
});

describe('rate limits off', () => {
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ rateLimits: false }))).emu;
  });

  it('never gives 429', async () => {
    const path = `/tables/${(await tableByName(emu, 'Contacts', 'Sales')).id}/rows?limit=1`;
    const statuses = await Promise.all(Array.from({ length: 150 }, () => get(emu, path).then((reply) => reply.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

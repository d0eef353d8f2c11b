import { describe, expect } from 'vitest';
import type { RequestLogEntry, RunningEmulator } from '../../../src/emulator/index.js';
import { call, get, post, tableByName, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// The emulator's request log (RunningEmulator.requestLog, GET /_emulator/requests, the `log` option).

describe('request log', () => {
  let emu: RunningEmulator;
  const lines: string[] = [];
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ log: (line) => lines.push(line), rateLimits: true }))).emu;
  });

  it('records every request in arrival order, with bucket, status and redacted path', async () => {
    const leads = await tableByName(emu, 'Leads');
    const started = performance.now();
    await get(emu, `/tables/${leads.id}/rows?limit=2`);
    await post(emu, `/tables/${leads.id}/rows/query`, { q: 'a' });
    await get(emu, '/workspaces', { key: 'wrong' });
    await get(emu, `/workspaces?api_key=${emu.apiKey}`, { key: null });
    const webhook = Object.values(emu.webhooks)[0]!;
    await post(emu, webhook, [{ a: 1 }, {}, { b: 2 }], { key: null });
    await call(emu, 'HEAD', webhook, { key: null });
    await get(emu, '/nope');
    const elapsed = performance.now() - started;

    const log = emu.requestLog;
    expect(log.map((entry) => [entry.method, entry.status, entry.bucket])).toEqual([
      ['GET', 200, 'metadata'],
      ['GET', 200, 'rows'],
      ['POST', 200, 'rows'],
      ['GET', 401, 'badKey'],
      ['GET', 401, 'badKey'],
      ['POST', 200, 'webhook'],
      ['HEAD', 200, 'webhook'],
      ['GET', 404, undefined],
    ]);
    expect(log[1]!.path).toBe(`/v1/tables/${leads.id}/rows?limit=2`);
    expect(log[4]!.path).toBe('/v1/workspaces?api_key=***');
    expect(log[5]).toMatchObject({ path: '/v1/webhook/***', objects: 3, bodyBytes: JSON.stringify([{ a: 1 }, {}, { b: 2 }]).length });
    // one request after another: their durations, each measured inside the emulator, add up to less than the test waited
    const durations = log.slice(1).map((entry) => entry.durationMs);
    for (const duration of durations) expect(duration).toBeGreaterThanOrEqual(0);
    expect(durations.reduce((sum, duration) => sum + duration, 0)).toBeLessThanOrEqual(elapsed);
    for (const entry of log) expect(entry.at).toBeGreaterThan(0);
    const secrets = [emu.apiKey, ...Object.values(emu.webhooks).map((url) => url.split('/').pop()!)];
    for (const text of [JSON.stringify(log), lines.join('\n')]) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(lines).toHaveLength(log.length);
    expect(lines[1]).toBe(`GET /v1/tables/${leads.id}/rows?limit=2 200 ${log[1]!.durationMs}ms`);
  });

  it('serves the log at GET /_emulator/requests without logging that request', async () => {
    const before = emu.requestLog.length;
    const reply = await call<RequestLogEntry[]>(emu, 'GET', emu.baseUrl.replace('/v1', '/_emulator/requests'), { key: null });
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(before);
    expect(emu.requestLog).toHaveLength(before);
  });
});

import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/service-timings.js';
import { client, clients, failure, gaps, KEY, serve, servers } from './client-fixtures.js';
import { TABLES, WORKSPACES, apiError, json, type Reply } from './test-server.js';

describe('ApiClient retries', () => {
  it.each<[string, Reply]>([
    ['500', apiError(500, 'boom')],
    ['502', apiError(502, 'bad gateway')],
    ['503', apiError(503, 'unavailable')],
    ['504', apiError(504, 'timeout')],
    ['a reset connection', { action: 'reset' }],
  ])('retries after %s and succeeds', async (_name, first) => {
    const server = await serve((_r, i) => (i === 0 ? first : json(200, WORKSPACES)));
    const api = client(server);
    expect((await api.workspaces()).total).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(api.stats).toMatchObject({ requests: 2, retries: 1 });
  });

  it('retries a stalled response after the timeout', async () => {
    const server = await serve((_r, i) => (i === 0 ? { action: 'stall' } : json(200, WORKSPACES)));
    const api = client(server, { timeoutMs: 150 });
    const started = Date.now();
    expect((await api.workspaces()).total).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(server.requests).toHaveLength(2);
  });

  it('waits retry-after seconds (scaled) on 429, then succeeds', async () => {
    const server = await serve((_r, i) => (i === 0 ? apiError(429, 'slow down', { 'retry-after': '2' }) : json(200, WORKSPACES)));
    const api = client(server, { timings: serviceTimings(20) }); // 2 s / 20 = 100 ms
    await api.workspaces();
    expect(gaps(server.requests)[0]).toBeGreaterThanOrEqual(95);
    expect(api.stats).toMatchObject({ requests: 2, retries: 1, rateLimited: 1 });
    expect(api.stats.waitedMs).toBeGreaterThanOrEqual(95);
  });

  it('waits the 10 s default (scaled) on a 429 without retry-after', async () => {
    const server = await serve((_r, i) => (i === 0 ? apiError(429, 'slow down') : json(200, WORKSPACES)));
    const api = client(server, { timings: serviceTimings(100) }); // 10 s / 100 = 100 ms
    await api.workspaces();
    const gap = gaps(server.requests)[0]!;
    expect(gap).toBeGreaterThanOrEqual(95);
    expect(gap).toBeLessThan(1000);
  });

  it('holds every request of the bucket during a 429 pause, but not the other bucket', async () => {
    const page = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    const server = await serve((request, i) => {
      if (i === 0) return apiError(429, 'slow down', { 'retry-after': '3' });
      if (request.url.includes('/rows')) return json(200, page);
      return request.url.startsWith('/v1/tables') ? json(200, TABLES) : json(200, WORKSPACES);
    });
    const api = client(server, { timings: serviceTimings(20) }); // 150 ms pause
    const first = api.workspaces();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = Date.now();
    await api.rowsPage('t1', {});
    const rowsDone = Date.now() - started;
    await Promise.all([first, api.tables()]);
    const metadataTimes = server.requests.filter((r) => !r.url.includes('/rows')).map((r) => r.at);
    expect(rowsDone).toBeLessThan(100);
    expect(metadataTimes).toHaveLength(3);
    expect(metadataTimes[2]! - metadataTimes[0]!).toBeGreaterThanOrEqual(145);
  });

  it('gives up after maxRetries with GAVE_UP naming what was tried', async () => {
    const server = await serve((_r, i) =>
      i % 2 === 0 ? apiError(503, 'down for maintenance') : apiError(429, 'busy', { 'retry-after': '1' }),
    );
    const api = client(server, { maxRetries: 3 });
    const error = await failure(api.workspaces());
    expect(server.requests).toHaveLength(4);
    expect(error.code).toBe('GAVE_UP');
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('list workspaces: gave up after 4 attempts (HTTP 503 ×2, HTTP 429 ×2): busy (HTTP 429)');
    expect(error.reason).toBe('rate-limit-exhausted');
  });

  it('gives up on a refused connection, naming the address', async () => {
    const server = await serve(() => json(200, WORKSPACES));
    const baseUrl = server.baseUrl;
    await server.close();
    servers.length = 0;
    const api = new ApiClient({ baseUrl, apiKey: KEY, maxRetries: 1, timings: serviceTimings(1000) });
    clients.push(api);
    const error = await failure(api.workspaces());
    expect(error.code).toBe('GAVE_UP');
    expect(error.message).toMatch(
      /^list workspaces: gave up after 2 attempts \(connection refused ×2\): 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)$/,
    );
  });

  it('stops waiting as soon as the signal is aborted', async () => {
    const controller = new AbortController();
    const server = await serve(() => apiError(429, 'slow', { 'retry-after': '60' }));
    const api = client(server, { timings: serviceTimings(1), signal: controller.signal });
    const pending = api.workspaces();
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    const started = Date.now();
    await expect(pending).rejects.toThrow('interrupted');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('aborts requests in flight at once, through one listener on the signal for all of them', async () => {
    const controller = new AbortController();
    const server = await serve(() => ({ action: 'stall' }));
    const api = client(server, { signal: controller.signal });
    const pending = Promise.allSettled([api.workspaces(), api.tables(), api.schema('t1')]);
    await vi.waitFor(() => expect(server.requests).toHaveLength(3));
    // undici's per-request listeners, removed but still linked to their neighbours, once kept every
    // later response alive through young collections (see Transport.createPool).
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const started = Date.now();
    controller.abort(new Error('interrupted'));
    const results = await pending;
    expect(results.map((result) => result.status === 'rejected' && (result.reason as Error).message)).toEqual([
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('ApiClient pacing', () => {
  it('sends the full burst of a limit at once, then waits for the window', async () => {
    const page = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    const server = await serve(() => json(200, page));
    const api = client(server, { timings: serviceTimings(300) }); // rows: 60 per 200 ms
    await Promise.all(Array.from({ length: 61 }, () => api.rowsPage('t1', {})));
    const times = server.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(times[59]! - times[0]!).toBeLessThan(150);
    expect(times[60]! - times[0]!).toBeGreaterThanOrEqual(195);
    expect(api.stats.waitedMs).toBeGreaterThan(0);
  });
});

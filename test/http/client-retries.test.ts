import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
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
    const log: string[] = [];
    const api = client(server, { timings: serviceTimings(100), log: (line) => log.push(line) }); // 10 s / 100 = 100 ms
    await api.workspaces();
    const gap = gaps(server.requests)[0]!;
    expect(gap).toBeGreaterThanOrEqual(95);
    expect(log[0]).toMatch(/; retry 1\/5 in 100ms \(rate limited\)$/);
  });

  it('holds every request of the bucket during a 429 pause, but not the other bucket', async () => {
    const page = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    const server = await serve((request, i) => {
      if (i === 0) return apiError(429, 'slow down', { 'retry-after': '20' });
      if (request.url.includes('/rows')) return json(200, page);
      return request.url.startsWith('/v1/tables') ? json(200, TABLES) : json(200, WORKSPACES);
    });
    const api = client(server, { timings: serviceTimings(20) }); // 1 s pause
    const first = api.workspaces();
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await api.rowsPage('t1', {});
    await Promise.all([first, api.tables()]);
    const metadataTimes = server.requests.filter((r) => !r.url.includes('/rows')).map((r) => r.at);
    // the rows request went out during the pause: before the retry of the metadata request
    expect(server.requests.map((r) => (r.url.includes('/rows') ? 'rows' : 'metadata')).slice(0, 3)).toEqual([
      'metadata',
      'rows',
      'metadata',
    ]);
    expect(metadataTimes).toHaveLength(3);
    expect(metadataTimes[2]! - metadataTimes[0]!).toBeGreaterThanOrEqual(145);
  });

  it('a row request under a ceiling: its retry after a 503 waits for the window too, not only its first attempt', async () => {
    const page = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    const server = await serve((_r, i) => (i === 2 ? apiError(503, 'unavailable') : json(200, page)));
    // a minute of 300 ms; the retry's own backoff is far shorter
    const api = client(server, { timings: serviceTimings(200) });
    await api.rowsPage('t1', {});
    await api.rowsPage('t1', {});
    await api.rowsPage('t1', {}, undefined, 3);
    const at = server.requests.map((request) => request.at);
    expect(at).toHaveLength(4);
    // the window held three (two and the failed attempt): the retry went when the first left it
    expect(at[3]! - at[0]!).toBeGreaterThanOrEqual(300);
    expect(api.stats).toMatchObject({ rowRequests: 4, retries: 1 });
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

  it('fails at the first refused connection on a loopback address: nothing listens there', async () => {
    const server = await serve(() => json(200, WORKSPACES));
    const baseUrl = server.baseUrl;
    await server.close();
    servers.length = 0;
    const lines: string[] = [];
    const api = new ApiClient({ baseUrl, apiKey: KEY, maxRetries: 5, timings: serviceTimings(1000), log: (line) => lines.push(line) });
    clients.push(api);
    const error = await failure(api.workspaces());
    expect(lines).toHaveLength(1);
    expect(api.stats.retries).toBe(0);
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(/^list workspaces: nothing listens on 127\.0\.0\.1:\d+ — is `tds emulator` running\?$/);
    expect(error.reason).toBe('unreachable');
  });

  it('stops waiting as soon as the signal is aborted', async () => {
    const controller = new AbortController();
    const server = await serve(() => apiError(429, 'slow', { 'retry-after': '60' }));
    const api = client(server, { timings: serviceTimings(1), signal: controller.signal });
    const pending = api.workspaces();
    // aborted once the first 429 is in (a loaded machine can take longer than any fixed delay to send it)
    const abortAfterFirst = setInterval(() => {
      if (server.requests.length > 0) controller.abort(new Error('interrupted'));
    }, 10);
    pending.catch(() => undefined).finally(() => clearInterval(abortAfterFirst));
    // waiting out the 60 s would end in another request and another 429, not in the abort's reason
    await expect(pending).rejects.toThrow('interrupted');
    expect(server.requests).toHaveLength(1);
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
    controller.abort(new Error('interrupted'));
    const results = await pending;
    expect(results.map((result) => result.status === 'rejected' && (result.reason as Error).message)).toEqual([
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
    expect(server.requests).toHaveLength(3);
  });
});

describe('ApiClient limiter', () => {
  it('sends the full burst of a limit at once, then waits for the window', async () => {
    const page = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    const server = await serve(() => json(200, page));
    const log: string[] = [];
    const api = client(server, { timings: serviceTimings(300), log: (line) => log.push(line) }); // rows: 60 per 200 ms
    await Promise.all(Array.from({ length: 61 }, () => api.rowsPage('t1', {})));
    const times = server.requests.map((r) => r.at).sort((a, b) => a - b);
    // the first 60 went without a limiter wait, the 61st waited for the window
    expect(log.map((line) => line.includes('(limiter '))).toEqual([...Array<boolean>(60).fill(false), true]);
    expect(times[60]! - times[0]!).toBeGreaterThanOrEqual(195);
    expect(api.stats.waitedMs).toBeGreaterThan(0);
  });
});

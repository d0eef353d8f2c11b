import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../src/http/client.js';
import { servicePace } from '../../src/http/service-pace.js';
import { TdsError } from '../../src/core/errors.js';
import { TABLES, WORKSPACES, apiError, json, startTestServer, type Reply, type RecordedRequest, type TestServer } from './test-server.js';

const KEY = 'sk_test_0123456789abcdef';
const servers: TestServer[] = [];
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(answer: (request: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<TestServer> {
  const server = await startTestServer(answer);
  servers.push(server);
  return server;
}

function client(server: TestServer, options: Partial<ApiClientOptions> = {}): ApiClient {
  const created = new ApiClient({ baseUrl: server.baseUrl, apiKey: KEY, pace: servicePace(1000), ...options });
  clients.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<TdsError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TdsError);
  return error as TdsError;
}

const gaps = (requests: RecordedRequest[]): number[] => requests.slice(1).map((r, i) => r.at - requests[i]!.at);

describe('ApiClient requests', () => {
  it('sends the bearer key to the base path and keeps members the spec does not name', async () => {
    const body = { ...WORKSPACES, workspaces: [{ ...WORKSPACES.workspaces[0], color: 'blue' }], total: 1 };
    const server = await serve(() => json(200, body));
    const result = await client(server).workspaces();
    expect(result).toEqual(body);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/workspaces' });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('passes workspaceId as a query parameter and encodes table IDs in paths', async () => {
    const server = await serve((request) =>
      request.url.startsWith('/v1/tables?')
        ? json(200, { tables: [], total: 0 })
        : json(200, { table: { id: 'a/b', name: 'X' }, fields: [] }),
    );
    const api = client(server);
    await api.tables({ workspaceId: 'ws 1' });
    await api.schema('a/b');
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/tables?workspaceId=ws+1', '/v1/tables/a%2Fb/schema']);
  });

  it('GETs rows pages with limit, cursor and q, and POSTs query bodies as JSON', async () => {
    const page = { rows: [], limit: 5, nextCursor: null, hasNextPage: false };
    const server = await serve(() => json(200, page));
    const api = client(server);
    await api.rowsPage('t1', { limit: 5, cursor: 'c_1', q: 'acme' });
    await api.queryPage('t1', { limit: 5, filters: { rules: [{ fieldId: 'f1', operator: '=', value: 3 }] } });
    expect(server.requests[0]!.url).toBe('/v1/tables/t1/rows?limit=5&cursor=c_1&q=acme');
    expect(server.requests[1]).toMatchObject({ method: 'POST', url: '/v1/tables/t1/rows/query' });
    expect(server.requests[1]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ limit: 5, filters: { rules: [{ fieldId: 'f1', operator: '=', value: 3 }] } });
  });

  it('hands the raw body of a rows page to onBody before the page is returned', async () => {
    const page = { rows: [], limit: 5, nextCursor: 'c_2', hasNextPage: true };
    const server = await serve(() => json(200, page));
    const bodies: string[] = [];
    const result = await client(server).rowsPage('t1', { limit: 5 }, (body) => bodies.push(body));
    expect(bodies.map((body) => JSON.parse(body) as unknown)).toEqual([page]);
    expect(result).toEqual(page);
  });

  it('accepts any 2xx status', async () => {
    const server = await serve(() => json(203, WORKSPACES));
    expect((await client(server).workspaces()).total).toBe(2);
  });

  it('accepts a cut cell that carries only valuePreview', async () => {
    const row = {
      id: 'r1',
      tableId: 't1',
      createdAt: 'x',
      updatedAt: 'x',
      createdByUserId: null,
      cells: { f1: { isTruncated: true, valuePreview: 'abc' }, f2: {} },
    };
    const server = await serve(() => json(200, { rows: [row], limit: 100, nextCursor: null, hasNextPage: false }));
    expect((await client(server).rowsPage('t1', {})).rows[0]).toEqual(row);
  });
});

describe('ApiClient checks response shapes', () => {
  it.each([
    ['a missing member', { workspaces: [{ id: 'w', name: 'n' }], total: 1 }, /workspaces\[0\]\.tableCount/],
    ['a wrong type', { workspaces: 'none', total: 1 }, /GET \/workspaces: workspaces:/],
    ['not JSON', 'oops <html>', /the body is not JSON/],
  ])('%s is a clear error naming the endpoint and path', async (_name, body, pattern) => {
    const server = await serve(() => json(200, body));
    const error = await failure(client(server).workspaces());
    expect(error.code).toBe('API');
    expect(error.message).toMatch(/^list workspaces: unexpected response from the service: /);
    expect(error.message).toMatch(pattern);
  });

  it('rejects a column type the spec does not list', async () => {
    const field = { id: 'f', name: 'n', label: 'L', type: 'hologram', options: null, isSystem: false };
    const server = await serve(() => json(200, { table: { id: 't', name: 'T' }, fields: [field] }));
    const error = await failure(client(server).schema('t'));
    expect(error.message).toMatch(/fields\[0\]\.type/);
  });
});

describe('ApiClient errors (never retried)', () => {
  it.each([
    [400, 'USAGE', 2],
    [401, 'AUTH', 3],
    [402, 'PAUSED', 5],
    [404, 'NOT_FOUND', 4],
    [418, 'API', 1],
  ])('HTTP %i → %s (exit %i) after one request', async (status, code, exit) => {
    const server = await serve(() => apiError(status, 'Nope'));
    const error = await failure(client(server).schema('t9'));
    expect(error.code).toBe(code);
    expect(error.exitCode).toBe(exit);
    expect(error.message).toBe(`read the schema of table t9: Nope (HTTP ${status})`);
    expect(server.requests).toHaveLength(1);
  });

  it('names the reason of a 401, so the command layer can say to check or rotate the key', async () => {
    const server = await serve(() => apiError(401, 'Unauthorized'));
    const error = await failure(client(server).workspaces());
    expect(error.reason).toBe('bad-key');
  });

  it('treats a redirect as an error and never follows it to another origin', async () => {
    const other = await serve(() => json(200, WORKSPACES));
    const server = await serve(() => ({ status: 302, headers: { location: `${other.origin}/v1/workspaces?x=1` } }));
    const error = await failure(client(server).workspaces());
    expect(error.code).toBe('API');
    expect(error.message).toContain(`a redirect to ${other.origin}/v1/workspaces (HTTP 302)`);
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });
});

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
    const api = client(server, { pace: servicePace(20) }); // 2 s / 20 = 100 ms
    await api.workspaces();
    expect(gaps(server.requests)[0]).toBeGreaterThanOrEqual(95);
    expect(api.stats).toMatchObject({ requests: 2, retries: 1, rateLimited: 1 });
    expect(api.stats.waitedMs).toBeGreaterThanOrEqual(95);
  });

  it('waits the 10 s default (scaled) on a 429 without retry-after', async () => {
    const server = await serve((_r, i) => (i === 0 ? apiError(429, 'slow down') : json(200, WORKSPACES)));
    const api = client(server, { pace: servicePace(100) }); // 10 s / 100 = 100 ms
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
    const api = client(server, { pace: servicePace(20) }); // 150 ms pause
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
    const api = new ApiClient({ baseUrl, apiKey: KEY, maxRetries: 1, pace: servicePace(1000) });
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
    const api = client(server, { pace: servicePace(1), signal: controller.signal });
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
    const api = client(server, { pace: servicePace(300) }); // rows: 60 per 200 ms
    await Promise.all(Array.from({ length: 61 }, () => api.rowsPage('t1', {})));
    const times = server.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(times[59]! - times[0]!).toBeLessThan(150);
    expect(times[60]! - times[0]!).toBeGreaterThanOrEqual(195);
    expect(api.stats.waitedMs).toBeGreaterThan(0);
  });
});

describe('ApiClient verbose log and secrets', () => {
  it('logs one line per attempt with method, path, status, time and retries, never the key', async () => {
    const lines: string[] = [];
    const server = await serve((_r, i) => (i === 0 ? apiError(500, `bad key ${KEY}`) : json(200, WORKSPACES)));
    await client(server, { log: (line) => lines.push(line) }).workspaces();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^GET \/v1\/workspaces 500 \d+ms; retry 1\/5 in \d+ms \(server error\)$/);
    expect(lines[1]).toMatch(/^GET \/v1\/workspaces 200 \d+ms$/);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('keeps the key out of error messages', async () => {
    const server = await serve(() => apiError(401, 'Unauthorized'));
    const error = await failure(client(server).workspaces());
    expect(`${error.message} ${error.hint}`).not.toContain(KEY);
  });

  it.each([
    ['http://example.com/v1', /refusing plain http:\/\/ to example\.com/],
    ['ftp://127.0.0.1/v1', /must use https/],
    ['https://example.com/api', /must end in \/v1/],
    ['https://user:pw@example.com/v1', /user name or password/],
  ])('refuses the base URL %s', (baseUrl, pattern) => {
    expect(() => new ApiClient({ baseUrl, apiKey: KEY })).toThrow(pattern);
  });

  it('refuses a key with a line break (header injection)', () => {
    expect(() => new ApiClient({ baseUrl: 'https://example.com/v1', apiKey: 'a\r\nx-evil: 1' })).toThrow(/control characters/);
  });
});

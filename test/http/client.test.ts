import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { apiError, json } from '../helpers/scripted-server.js';
import { client, failure, KEY, serve, WORKSPACES } from './client-fixtures.js';

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
    expect(error.code).toBe('SERVICE_FAULT');
    expect(error.exitCode).toBe(6);
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
    [418, 'SERVICE_FAULT', 6],
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
    expect(error.code).toBe('SERVICE_FAULT');
    expect(error.message).toContain(`a redirect to ${other.origin}/v1/workspaces (HTTP 302)`);
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe('ApiClient verbose log and secrets', () => {
  it('logs one line per attempt with method, path, status, time and retries, never the key', async () => {
    const lines: string[] = [];
    const server = await serve((r) => (r.n === 1 ? apiError(500, `bad key ${KEY}`) : json(200, WORKSPACES)));
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

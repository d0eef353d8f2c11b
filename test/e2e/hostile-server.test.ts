import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunResult } from '../helpers/cli.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';

// Regression tests of issue 15 (hardening): the command program (in-process) against a server that answers
// badly on purpose. Each test starts its own server on 127.0.0.1 with port 0.

const KEY = 'tds_test_key_9f8e7d6c5b4a';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server for one test, closed when that test ends. */
async function hostile(handler: Handler): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((done) => server.close(() => done()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function tds(baseUrl: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  // TDS_RATE_SCALE: the row-read limit (60 a minute) and backoffs shorter
  return runInProcess(args, {
    env: { TDS_BASE_URL: baseUrl, TDS_API_KEY: KEY, TDS_RATE_SCALE: String(RATE_SCALE), ...env },
    timeoutMs: 30_000,
  });
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('a hostile retry-after (issue 15, item 10)', () => {
  it.each([
    ['seconds', '99999999'],
    ['an HTTP date years ahead', new Date(Date.now() + 3 * 365 * 86_400_000).toUTCString()],
  ])('in %s: gives up at once with exit 6, saying what was asked and what tds waits', async (_name, retryAfter) => {
    let requests = 0;
    const baseUrl = await hostile((_req, res) => {
      requests += 1;
      json(res, 429, { statusCode: 429, error: 'API Error', message: 'slow down' }, { 'retry-after': retryAfter });
    });
    const result = await tds(baseUrl, ['workspaces']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /^tds: list workspaces: the service asked to wait [\d,]+ s before trying again \(HTTP 429\); tds waits at most 300 s, so it gave up$/m,
    );
    expect(result.stderr).not.toMatch(/TimeoutOverflowWarning/);
    expect(requests).toBe(1); // gave up at once: no retry after any wait
  });
});

describe('responses too large, too slow, or endless (item 11)', () => {
  it('a body far larger than any page is cut off with a one-line error, memory intact', async () => {
    const baseUrl = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 2048) {
          sent += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const result = await tds(baseUrl, ['workspaces']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /^tds: list workspaces: 127\.0\.0\.1:\d+: the response was too large to be a page of this service \(TDS_RESPONSE_TOO_LARGE\)$/m,
    );
    expect(result.stderr).not.toMatch(/bug in tds|heap|at .*\.js/);
  });

  it('a body that drips forever is given up after the overall deadline and retried', async () => {
    let requests = 0;
    const baseUrl = await hostile((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const result = await tds(baseUrl, ['workspaces', '--timeout', '0.5', '--max-retries', '1']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/gave up after 2 attempts .*the response did not arrive in full in time/);
    expect(requests).toBe(2);
  });

  it('empty pages with ever-new cursors are followed only so far (exit 6)', async () => {
    let pages = 0;
    const baseUrl = await hostile((req, res) => {
      if (req.url?.startsWith('/v1/tables/t1/schema')) return json(res, 200, { table: { id: 't1', name: 'T' }, fields: [] });
      if (!req.url?.startsWith('/v1/tables/t1/rows')) {
        return json(res, 200, {
          tables: [{ id: 't1', name: 'T', emoji: null, workspaceId: 'w', workspaceName: 'W', rowCount: 5, fieldCount: 0 }],
          total: 1,
        });
      }
      pages += 1;
      json(res, 200, { rows: [], limit: 100, nextCursor: `c${pages}`, hasNextPage: true });
    });
    const result = await tds(baseUrl, ['rows', 't1', '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/the service sent 100 empty pages in a row, each with a new cursor; stopping/);
    // 100 pages read, and at most the 2 requested ahead of them
    expect(pages).toBeGreaterThanOrEqual(100);
    expect(pages).toBeLessThanOrEqual(102);
  });

  it('a cursor longer than the service accepts is not sent on (exit 6; item 15)', async () => {
    const requests: string[] = [];
    const baseUrl = await hostile((req, res) => {
      requests.push(req.url ?? '');
      if (req.url?.startsWith('/v1/tables/t1/schema')) return json(res, 200, { table: { id: 't1', name: 'T' }, fields: [] });
      if (!req.url?.startsWith('/v1/tables/t1/rows')) {
        return json(res, 200, {
          tables: [{ id: 't1', name: 'T', emoji: null, workspaceId: 'w', workspaceName: 'W', rowCount: 5, fieldCount: 0 }],
          total: 1,
        });
      }
      const row = {
        id: 'r1',
        tableId: 't1',
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
        createdByUserId: null,
        cells: {},
      };
      json(res, 200, { rows: [row], limit: 100, nextCursor: 'x'.repeat(100_000), hasNextPage: true });
    });
    const result = await tds(baseUrl, ['rows', 't1', '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/a cursor of 100,000 characters \(at most 500 are valid\); stopping/);
    expect(requests.filter((url) => url.includes('cursor='))).toEqual([]);
  });
});

describe('a cursor chain the service breaks (issue 29)', () => {
  it.each([
    [
      'a cursor returned again',
      (n: number) => ({ nextCursor: n % 2 ? 'a' : 'b', hasNextPage: true }),
      /a cursor it had already returned; stopping to avoid a loop/,
    ],
    ['more pages without a cursor', () => ({ nextCursor: null, hasNextPage: true }), /hasNextPage\) but gave no nextCursor; stopping/],
  ])('%s: tds rows and tds sync give up with exit 6 and say why', async (_what, chain, message) => {
    let pages = 0;
    const baseUrl = await hostile((req, res) => {
      if (req.url?.startsWith('/v1/tables/t1/schema')) return json(res, 200, { table: { id: 't1', name: 'T' }, fields: [] });
      if (!req.url?.startsWith('/v1/tables/t1/rows')) {
        return json(res, 200, {
          tables: [{ id: 't1', name: 'T', emoji: null, workspaceId: 'w', workspaceName: 'W', rowCount: 5, fieldCount: 0 }],
          total: 1,
        });
      }
      pages += 1;
      const at = '2026-01-01T00:00:00Z';
      const row = { id: `r${pages}`, tableId: 't1', createdAt: at, updatedAt: at, createdByUserId: null, cells: {} };
      json(res, 200, { rows: [row], limit: 100, ...chain(pages) });
    });
    const dir = await mkdtemp(join(tmpdir(), 'tds-loop-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    for (const args of [
      ['rows', 't1', '--format', 'ndjson'],
      ['sync', 't1', '--db', join(dir, 'mirror.duckdb')],
    ]) {
      const result = await tds(baseUrl, args);
      expect(result.code, result.stderr).toBe(6);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/\nhint: the service's pages could not be followed to the end/);
      expect(result.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    }
  });
});

describe('keys and messages (items 12, 13, 15)', () => {
  it('a key with non-ASCII characters exits 2 before any request', async () => {
    let requests = 0;
    const baseUrl = await hostile((_req, res) => {
      requests += 1;
      json(res, 200, { workspaces: [], total: 0 });
    });
    const result = await tds(baseUrl, ['workspaces'], { TDS_API_KEY: 'tds_clé_ünïcode' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^tds: the API key contains characters an HTTP header cannot carry \(only visible ASCII\)$/m);
    expect(result.stderr).not.toContain('clé');
    expect(requests).toBe(0);
  });

  it('a service message that echoes the Authorization header is printed with the key redacted', async () => {
    const baseUrl = await hostile((req, res) =>
      json(res, 400, { statusCode: 400, error: 'API Error', message: `bad header: ${req.headers.authorization}` }),
    );
    const result = await tds(baseUrl, ['tables']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/bad header: Bearer \*\*\*/);
    expect(result.stderr).not.toContain(KEY);
  });

  it('an HTML error page is cut down to its title on one line', async () => {
    const page = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>\n<body><h1>Bad Gateway</h1><p>${'x'.repeat(5000)}</p></body></html>`;
    const baseUrl = await hostile((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(page);
    });
    const result = await tds(baseUrl, ['workspaces', '--max-retries', '0']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/^tds: list workspaces: 502 Bad Gateway \(HTTP 502\)$/m);
    expect(result.stderr).not.toContain('<');
    expect(result.stderr.length).toBeLessThan(500);
  });
});

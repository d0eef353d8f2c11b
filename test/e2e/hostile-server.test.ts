import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunResult } from '../helpers/cli.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';
import { apiError, json, startScriptedServer, type Reply, type Script, type ScriptedServer } from '../helpers/scripted-server.js';

// Regression tests of issue 15 (hardening): the command program (in-process) against a server that answers
// badly on purpose (helpers/scripted-server.ts), one per test, closed when that test ends.

const KEY = 'tds_test_key_9f8e7d6c5b4a';

async function hostile(script: Script): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  onTestFinished(() => server.close());
  return server;
}

function tds(server: ScriptedServer, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  // TDS_RATE_SCALE: the row-read limit (60 a minute) and backoffs shorter
  return runInProcess(args, {
    env: { TDS_BASE_URL: `${server.origin}/v1`, TDS_API_KEY: KEY, TDS_RATE_SCALE: String(RATE_SCALE), ...env },
    timeoutMs: 30_000,
  });
}

/** A service of one table, t1, without fields, whose row pages `page` answers (1 for the first page). */
function oneTable(page: (n: number) => Reply): Script {
  const table = { id: 't1', name: 'T', emoji: null, workspaceId: 'w', workspaceName: 'W', rowCount: 5, fieldCount: 0 };
  let pages = 0;
  return (request) => {
    if (request.url.startsWith('/v1/tables/t1/schema')) return json(200, { table: { id: 't1', name: 'T' }, fields: [] });
    if (!request.url.startsWith('/v1/tables/t1/rows')) return json(200, { tables: [table], total: 1 });
    return page((pages += 1));
  };
}

const AT = '2026-01-01T00:00:00Z';
const row = (id: string) => ({ id, tableId: 't1', createdAt: AT, updatedAt: AT, createdByUserId: null, cells: {} });
const pagesOf = (server: ScriptedServer): number =>
  server.requests.filter((request) => request.url.startsWith('/v1/tables/t1/rows')).length;

/** A 200 whose body `write` streams (never ending, or far too large). */
const streamed = (write: (res: ServerResponse) => void): Reply => ({
  write: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    write(res);
  },
});

describe('a hostile retry-after (issue 15, item 10)', () => {
  it.each([
    ['seconds', '99999999'],
    ['an HTTP date years ahead', new Date(Date.now() + 3 * 365 * 86_400_000).toUTCString()],
  ])('in %s: gives up at once with exit 6, saying what was asked and what tds waits', async (_name, retryAfter) => {
    const server = await hostile(() => apiError(429, 'slow down', { 'retry-after': retryAfter }));
    const result = await tds(server, ['workspaces']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /^tds: list workspaces: the service asked to wait [\d,]+ s before trying again \(HTTP 429\); tds waits at most 300 s, so it gave up$/m,
    );
    expect(result.stderr).not.toMatch(/TimeoutOverflowWarning/);
    expect(server.requests).toHaveLength(1); // gave up at once: no retry after any wait
  });
});

describe('responses too large, too slow, or endless (item 11)', () => {
  it('a body far larger than any page is cut off with a one-line error, memory intact', async () => {
    const server = await hostile(() =>
      streamed((res) => {
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
      }),
    );
    const result = await tds(server, ['workspaces']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /^tds: list workspaces: 127\.0\.0\.1:\d+: the response was too large to be a page of this service \(TDS_RESPONSE_TOO_LARGE\)$/m,
    );
    expect(result.stderr).not.toMatch(/bug in tds|heap|at .*\.js/);
  });

  it('a body that drips forever is given up after the overall deadline and retried', async () => {
    const server = await hostile(() =>
      streamed((res) => {
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
      }),
    );
    const result = await tds(server, ['workspaces', '--timeout', '0.5', '--max-retries', '1']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/gave up after 2 attempts .*the response did not arrive in full in time/);
    expect(server.requests).toHaveLength(2);
  });

  it('empty pages with ever-new cursors are followed only so far (exit 6)', async () => {
    const server = await hostile(oneTable((n) => json(200, { rows: [], limit: 100, nextCursor: `c${n}`, hasNextPage: true })));
    const result = await tds(server, ['rows', 't1', '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/the service sent 100 empty pages in a row, each with a new cursor; stopping/);
    // 100 pages read, and at most the 2 requested ahead of them
    expect(pagesOf(server)).toBeGreaterThanOrEqual(100);
    expect(pagesOf(server)).toBeLessThanOrEqual(102);
  });

  it('a cursor longer than the service accepts is not sent on (exit 6; item 15)', async () => {
    const server = await hostile(
      oneTable(() => json(200, { rows: [row('r1')], limit: 100, nextCursor: 'x'.repeat(100_000), hasNextPage: true })),
    );
    const result = await tds(server, ['rows', 't1', '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/a cursor of 100,000 characters \(at most 500 are valid\); stopping/);
    expect(server.requests.filter((request) => request.url.includes('cursor='))).toEqual([]);
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
    const server = await hostile(oneTable((n) => json(200, { rows: [row(`r${n}`)], limit: 100, ...chain(n) })));
    const dir = await mkdtemp(join(tmpdir(), 'tds-loop-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    for (const args of [
      ['rows', 't1', '--format', 'ndjson'],
      ['sync', 't1', '--db', join(dir, 'mirror.duckdb')],
    ]) {
      const result = await tds(server, args);
      expect(result.code, result.stderr).toBe(6);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/\nhint: the service's pages could not be followed to the end/);
      expect(result.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    }
  });
});

describe('keys and messages (items 12, 13, 15)', () => {
  it('a key with non-ASCII characters exits 2 before any request', async () => {
    const server = await hostile(() => json(200, { workspaces: [], total: 0 }));
    const result = await tds(server, ['workspaces'], { TDS_API_KEY: 'tds_clé_ünïcode' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^tds: the API key contains characters an HTTP header cannot carry \(only visible ASCII\)$/m);
    expect(result.stderr).not.toContain('clé');
    expect(server.requests).toHaveLength(0);
  });

  it('a service message that echoes the Authorization header is printed with the key redacted', async () => {
    const server = await hostile((request) => apiError(400, `bad header: ${request.headers.authorization}`));
    const result = await tds(server, ['tables']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/bad header: Bearer \*\*\*/);
    expect(result.stderr).not.toContain(KEY);
  });

  it('an HTML error page is cut down to its title on one line', async () => {
    const page = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>\n<body><h1>Bad Gateway</h1><p>${'x'.repeat(5000)}</p></body></html>`;
    const server = await hostile(() => ({ status: 502, headers: { 'content-type': 'text/html' }, body: page }));
    const result = await tds(server, ['workspaces', '--max-retries', '0']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/^tds: list workspaces: 502 Bad Gateway \(HTTP 502\)$/m);
    expect(result.stderr).not.toContain('<');
    expect(result.stderr.length).toBeLessThan(500);
  });
});

import { readdir } from 'node:fs/promises';
import { describe, expect, onTestFinished } from 'vitest';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

// A service whose schema gives two fields one ID (the emulator never does: a proxy in front of it
// makes the second field take the first one's ID) fails a sync with a clear error that names the
// service's fault, before the mirror is written; never an unexpected failure.

const openHarness = useOpenOfEachTest();

/** A proxy to `target` (…/v1) that rewrites each schema answer with `rewrite`: a scripted server whose script forwards. */
async function schemaProxy(target: string, rewrite: (body: { fields: Array<{ id: string }> }) => void): Promise<string> {
  const upstream = new URL(target);
  const server = await startScriptedServer(async (request) => {
    const forwarded: Record<string, string> = {};
    for (const name of ['authorization', 'content-type']) if (request.headers[name]) forwarded[name] = String(request.headers[name]);
    const answer = await fetch(`${upstream.origin}${request.url}`, {
      method: request.method,
      headers: forwarded,
      ...(request.bytes ? { body: request.body } : {}),
    });
    const headers = Object.fromEntries([...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name)));
    const text = await answer.text();
    if (!/\/schema$/.test(request.url) || answer.status !== 200) return { status: answer.status, headers, body: text };
    const json = JSON.parse(text) as { fields: Array<{ id: string }> };
    rewrite(json);
    return { status: answer.status, headers, body: json };
  });
  onTestFinished(() => server.close());
  return `${server.origin}${upstream.pathname}`;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

describe('a schema with two fields of one ID', () => {
  it("tds sync exits with a clear error naming the service's fault, and leaves no mirror", async () => {
    const b = await openHarness();
    const baseUrl = await schemaProxy(b.env.TDS_BASE_URL!, (body) => {
      if (body.fields.length > 1) body.fields[1]!.id = body.fields[0]!.id;
    });
    const result = await b.tds(['sync', 'Leads', '--db', 'dup.duckdb'], { env: { TDS_BASE_URL: baseUrl } });
    // the service broke its spec: exit 6, as a cursor loop is (1 is for failures of tds itself)
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /the service's schema of .*Leads gives two fields one ID, \S+ \(".*" and ".*"\): the service is at fault/,
    );
    expect(result.stderr).not.toMatch(/bug in tds|unexpected failure|PRIMARY KEY|at .*\.js/);
    expect((await readdir(b.dir)).filter((name) => name.startsWith('dup.duckdb'))).toEqual([]);
  });
});

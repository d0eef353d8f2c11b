import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { describe, expect, onTestFinished } from 'vitest';
import { test as it, type Harness, type HarnessOptions } from '../helpers/emulator-fixture.js';

// A service whose schema gives two fields one ID (the emulator never does: a proxy in front of it
// makes the second field take the first one's ID) fails a sync with a clear error that names the
// service's fault, before the mirror is written; never an unexpected failure.

let openHarness: (options?: HarnessOptions) => Promise<Harness>;
it.beforeEach(({ open }) => {
  openHarness = open;
});

/** A proxy to `target` (…/v1) that rewrites each schema answer with `rewrite`. */
async function schemaProxy(target: string, rewrite: (body: { fields: Array<{ id: string }> }) => void): Promise<string> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          if (/\/schema$/.test(req.url ?? '') && answer.statusCode === 200) {
            const json = JSON.parse(body.toString('utf8')) as { fields: Array<{ id: string }> };
            rewrite(json);
            body = Buffer.from(JSON.stringify(json));
          }
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`;
}

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

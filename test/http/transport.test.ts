import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { Client } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBodyText, RESPONSE_DEADLINE, RESPONSE_TOO_LARGE, type BodyLimits, Transport } from '../../src/http/transport.js';

const MB = 1024 * 1024;
const ROOMY: BodyLimits = { maxBytes: 1000, deadlineMs: 5000 };

/** A body that hands out `chunks` and records what happened to it. */
function recordedBody(chunks: Buffer[]) {
  const log = { read: 0, destroyed: 0 };
  return {
    log,
    body: {
      async *[Symbol.asyncIterator]() {
        for (const chunk of chunks) {
          log.read += 1;
          yield chunk;
        }
      },
      destroy() {
        log.destroyed += 1;
      },
    },
  };
}

/** The code of the error a promise rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'expected the read to fail').toBeInstanceOf(Error);
  return (error as NodeJS.ErrnoException).code;
}

describe('readBodyText', () => {
  it('returns the whole body as text, a character split across chunks included', async () => {
    const text = 'résumé: 数据 ✓';
    const bytes = Buffer.from(text);
    const chunks = [bytes.subarray(0, 2), bytes.subarray(2, 11), bytes.subarray(11)]; // 'é' and '数' cut in two
    expect(await readBodyText(Readable.from(chunks), ROOMY)).toBe(text);
  });

  it(`accepts a body of exactly maxBytes, and fails one byte more with ${RESPONSE_TOO_LARGE}, dropping the connection`, async () => {
    expect(await readBodyText(Readable.from([Buffer.alloc(600, 0x61), Buffer.alloc(400, 0x62)]), ROOMY)).toHaveLength(1000);
    const { body, log } = recordedBody([Buffer.alloc(600, 0x61), Buffer.alloc(401, 0x62), Buffer.alloc(10, 0x63)]);
    expect(await codeOf(readBodyText(body, ROOMY))).toBe(RESPONSE_TOO_LARGE);
    expect(log).toEqual({ read: 2, destroyed: 1 }); // nothing read past the limit
  });

  it('refuses a declared length past maxBytes before reading anything', async () => {
    const { body, log } = recordedBody([Buffer.alloc(10)]);
    expect(await codeOf(readBodyText(body, ROOMY, 1001))).toBe(RESPONSE_TOO_LARGE);
    expect(log).toEqual({ read: 0, destroyed: 1 });
    // a declared length of maxBytes is fine (what arrives is still counted)
    expect(await readBodyText(Readable.from([Buffer.from('ok')]), ROOMY, 1000)).toBe('ok');
  });

  it('with keepStart, returns the first maxBytes and drops the rest, whatever the declared length', async () => {
    const { body, log } = recordedBody([Buffer.from('abcdef'), Buffer.from('ghij'), Buffer.from('klm')]);
    expect(await readBodyText(body, { maxBytes: 8, deadlineMs: 5000, keepStart: true }, 1_000_000)).toBe('abcdefgh');
    expect(log).toEqual({ read: 2, destroyed: 1 });
  });

  it(`fails a body still arriving at the deadline with ${RESPONSE_DEADLINE}, however steadily it drips`, async () => {
    const body = new PassThrough();
    const drip = setInterval(() => body.write(' '), 10);
    try {
      const started = performance.now();
      expect(await codeOf(readBodyText(body, { maxBytes: MB, deadlineMs: 200 }))).toBe(RESPONSE_DEADLINE);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(body.destroyed).toBe(true);
    } finally {
      clearInterval(drip);
    }
  });

  it('leaves a body that arrived in time alone once the deadline passes', async () => {
    // the deadline's timer on a clock of the test's: it passes at once, with no wait
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { body, log } = recordedBody([Buffer.from('done')]);
      expect(await readBodyText(body, { maxBytes: 100, deadlineMs: 30 })).toBe('done');
      vi.advanceTimersByTime(60);
      expect(log.destroyed).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('readBodyText and Transport over a real connection (127.0.0.1)', () => {
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  /** A server on 127.0.0.1; `closed` resolves when the client has dropped the connection of the first response. */
  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
    const sockets = new Set<Socket>();
    let dropped!: () => void;
    const closed = new Promise<void>((resolve) => (dropped = resolve));
    const server = createServer((req, res) => {
      res.on('close', () => dropped());
      handler(req, res);
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed };
  }

  async function get(origin: string) {
    const client = new Client(origin);
    cleanups.push(() => client.destroy());
    return client.request({ method: 'GET', path: '/' });
  }

  it(`a body streamed past the limit: ${RESPONSE_TOO_LARGE}, and the connection is dropped before the server has sent it all`, async () => {
    let sent = 0;
    const { origin, closed } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to refuse up front
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (sent < 1024 && !res.destroyed) {
          sent += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const response = await get(origin);
    expect(await codeOf(readBodyText(response.body, { maxBytes: MB, deadlineMs: 10_000 }))).toBe(RESPONSE_TOO_LARGE);
    await closed;
    expect(sent).toBeLessThan(1024); // 64 MiB offered, far less taken
  });

  it(`a body that drips for ever: ${RESPONSE_DEADLINE} at the deadline, and the connection is dropped`, async () => {
    const { origin, closed } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 10);
      res.on('close', () => clearInterval(drip));
    });
    const response = await get(origin);
    expect(await codeOf(readBodyText(response.body, { maxBytes: MB, deadlineMs: 200 }))).toBe(RESPONSE_DEADLINE);
    await closed;
  });

  it(`Transport refuses a response declared larger than 64 MiB with ${RESPONSE_TOO_LARGE}, without reading it`, async () => {
    const { origin, closed } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * MB + 1) });
      res.write('{"rows":['); // and nothing more: only the declared length can end this read
    });
    const transport = new Transport({ origin, timeoutMs: 10_000 });
    cleanups.push(() => transport.close());
    expect(await codeOf(transport.send({ method: 'GET', path: '/', headers: {} }))).toBe(RESPONSE_TOO_LARGE);
    await closed;
  });

  it('Transport reads a response declared at 64 MiB exactly (the cap is not below it)', async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * MB) });
      // cut short once the head and a few bytes are out: the read fails on the connection, not on the size
      res.write('{"rows":[]}', () => setTimeout(() => res.destroy(), 20));
    });
    const transport = new Transport({ origin, timeoutMs: 10_000 });
    cleanups.push(() => transport.close());
    const code = await codeOf(transport.send({ method: 'GET', path: '/', headers: {} }));
    expect(code).toBe('UND_ERR_SOCKET');
  });

  it(`Transport gives a dripping response ${RESPONSE_DEADLINE} after 4 timeouts, though no single gap reaches the timeout`, async () => {
    const { origin, closed } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 25);
      res.on('close', () => clearInterval(drip));
    });
    const transport = new Transport({ origin, timeoutMs: 250 });
    cleanups.push(() => transport.close());
    const started = performance.now();
    expect(await codeOf(transport.send({ method: 'GET', path: '/', headers: {} }))).toBe(RESPONSE_DEADLINE);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 250 - 10);
    await closed;
  });
});

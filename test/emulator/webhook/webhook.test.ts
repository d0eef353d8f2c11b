import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, vi } from 'vitest';
import { ActionRunner } from '../../../src/emulator/actions/action-runner.js';
import { EmulatorClock } from '../../../src/emulator/store/state.js';
import { CursorCodec } from '../../../src/emulator/read/cursor.js';
import { FaultPlan } from '../../../src/emulator/faults/faults.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { Intake } from '../../../src/emulator/webhook/intake.js';
import { IntakeLimits } from '../../../src/emulator/webhook/limits.js';
import { LiveRows } from '../../../src/emulator/store/live-rows.js';
import { RateLimitEnforcer } from '../../../src/emulator/faults/rate-limit.js';
import { WEBHOOK_PATH_PREFIX } from '../../../src/emulator/http/route-table.js';
import { buildSeed } from '../../../src/emulator/seed/index.js';
import { createEmulatorServer } from '../../../src/emulator/http/server.js';
import { WEBHOOK_MAX_BODY_BYTES, WEBHOOK_MAX_OBJECTS } from '../../../src/service/index.js';
import { allRows, call, post, seededTable, tableInfo, type TableInfo } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md 4.7 and 4.8: body forms, limits, error shape, HEAD.

describe('webhook', () => {
  let emu: RunningEmulator, inbox: TableInfo, url: string;
  it.beforeAll(async ({ openForFile }) => {
    ({ emu, info: inbox } = await seededTable(openForFile, 'Inbox', { ingestDelayMs: 60_000 }));
    url = emu.webhooks[inbox.table.id]!;
  });

  const send = (body: unknown, headers: Record<string, string> = {}) => post(emu, url, body, { key: null, headers });
  const visible = async () => {
    emu.flushIntake();
    return allRows(emu, inbox.table.id);
  };

  it('has a long secret id in every webhook URL of the demo', () => {
    expect(Object.keys(emu.webhooks)).toHaveLength(2);
    for (const webhook of Object.values(emu.webhooks)) {
      expect(webhook.startsWith(`${emu.baseUrl}/`)).toBe(true);
      expect(webhook.split('/').pop()!.length).toBeGreaterThanOrEqual(32);
    }
  });

  it('takes the three body forms, one row per object, skipping empty objects', async () => {
    const before = (await visible()).length;
    const one = await send({ email: 'one@x.example' });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, message: '1 records are being processed' });
    expect((await send([{ email: 'two@x.example' }, {}, { email: 'three@x.example' }])).body.message).toBe('2 records are being processed');
    expect((await send({ data: [{ email: 'four@x.example' }, { nested: { deep: [1, 2] } }] })).body.message).toBe(
      '2 records are being processed',
    );
    const rows = await visible();
    expect(rows).toHaveLength(before + 5);
    const payloads = rows.map((row) => row.cells[inbox.id.payload!]!.value);
    expect(payloads).toContainEqual({ nested: { deep: [1, 2] } });
    expect(payloads).toContainEqual({ email: 'one@x.example' });
  });

  it('treats an object whose data is not an array as one row', async () => {
    await send({ data: 'plain' });
    expect((await visible()).map((row) => row.cells[inbox.id.payload!]!.value)).toContainEqual({ data: 'plain' });
  });

  const webhook400 = (reply: { status: number; body: unknown }, message: RegExp) => {
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringMatching(message) });
  };

  it.each([
    ['an empty object', {}, /nothing to add/],
    ['only empty objects', [{}, {}], /nothing to add/],
    ['an empty array', [], /nothing to add/],
    ['empty data', { data: [] }, /nothing to add/],
    ['invalid JSON', '{"a":', /not valid JSON/],
    ['an empty body', '', /empty/],
    ['a string', '"text"', /JSON object, an array of objects/],
    ['a number array', [1, 2], /entry 0 is not an object/],
    ['a nested array', [[{ a: 1 }]], /entry 0 is not an object/],
    ['null entries', { data: [{ a: 1 }, null] }, /entry 1 is not an object/],
  ])('refuses %s with 400', async (_name, body, message) => {
    webhook400(await send(body), message);
  });

  it('refuses more than 500 objects, and takes exactly 500', async () => {
    const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `bulk${i}@x.example` }));
    webhook400(await send(objects(WEBHOOK_MAX_OBJECTS + 1)), /a maximum of 500 per request/);
    const before = (await visible()).length;
    expect((await send(objects(WEBHOOK_MAX_OBJECTS))).body.message).toBe('500 records are being processed');
    expect((await visible()).length).toBe(before + 500);
  });

  it('refuses a body over 1 MB with 413, by Content-Length or as streamed', async () => {
    const big = JSON.stringify([{ blob: 'x'.repeat(WEBHOOK_MAX_BODY_BYTES) }]);
    const declared = await send(big);
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: expect.stringMatching(/1 MB/) });
    async function* chunks() {
      for (let i = 0; i < 12; i += 1) yield Buffer.from(i === 0 ? `[{"blob":"${'y'.repeat(99_990)}` : 'y'.repeat(100_000));
      yield Buffer.from('"}]');
    }
    const streamed = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Readable.from(chunks()) });
    expect(streamed.statusCode).toBe(413);
    await streamed.body.dump();
    const fits = JSON.stringify([{ blob: 'z'.repeat(WEBHOOK_MAX_BODY_BYTES - 20) }]);
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(WEBHOOK_MAX_BODY_BYTES);
    expect((await send(fits)).status).toBe(200);
  });

  it('reads a body over 1 MB to its end before the 413, so the sender reads the refusal and the connection goes on', async () => {
    const { hostname, port, pathname } = new URL(url);
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.on('error', () => undefined); // a reset shows as the close below
    const closed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
    /** The next whole response on the connection: its status, headers and body (undefined until it is all there). */
    const nextResponse = (): { status: number; headers: string; body: string } | undefined => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const headers = received.subarray(0, end).toString('latin1');
      const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
      if (received.length < end + 4 + length) return undefined;
      const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
      received = received.subarray(end + 4 + length);
      return { status: Number(headers.split(' ')[1]), headers, body };
    };
    const answer = async (): Promise<{ status: number; headers: string; body: string } | 'closed'> => {
      let response: ReturnType<typeof nextResponse>;
      const arrived = vi.waitFor(() => expect((response = nextResponse())).toBeDefined(), { timeout: 20_000, interval: 5 });
      return Promise.race([arrived.then(() => response!), closed]);
    };
    const post = (body: string): void => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      socket.write(body);
    };
    try {
      post(JSON.stringify([{ blob: 'x'.repeat(1_500_000) }]));
      const refused = await answer();
      expect(refused).toMatchObject({ status: 413 });
      expect((refused as { headers: string }).headers).not.toMatch(/connection: close/i);
      post(JSON.stringify([{ email: 'after-413@x.example' }]));
      expect(await answer()).toMatchObject({ status: 200 });
    } finally {
      socket.destroy();
    }
  });

  it('takes a body of exactly 1,000,000 bytes and refuses 1,000,001 bytes with 413', async () => {
    const sized = (bytes: number) => JSON.stringify([{ blob: 'é'.repeat(10) + 'z'.repeat(bytes - 33) }]);
    expect(Buffer.byteLength(sized(WEBHOOK_MAX_BODY_BYTES))).toBe(WEBHOOK_MAX_BODY_BYTES);
    expect((await send(sized(WEBHOOK_MAX_BODY_BYTES))).status).toBe(200);
    expect((await send(sized(WEBHOOK_MAX_BODY_BYTES + 1))).status).toBe(413);
  });

  it('refuses a body nested more than 1000 levels deep with 400, and the table stays readable', async () => {
    const nested = (levels: number) => `{"deep":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    webhook400(await send(nested(1001)), /more than 1000 levels/);
    webhook400(await send(`[${nested(100_000)}]`), /more than 1000 levels/);
    expect((await send(nested(1000))).status).toBe(200);
    expect((await send({ text: '[[[[{{{{"\\' })).status).toBe(200); // brackets inside strings do not count
    const rows = await visible();
    expect(rows.some((row) => JSON.stringify(row).includes('[[[['))).toBe(true);
    expect((await call(emu, 'POST', `/tables/${inbox.table.id}/rows/query`, { body: { q: 'deep' } })).status).toBe(200);
  });

  it('needs Content-Type application/json', async () => {
    webhook400(await call(emu, 'POST', url, { key: null, body: '{"a":1}', headers: { 'content-type': 'text/plain' } }), /Content-Type/);
  });

  it('gives 404 with a webhook error on an unknown webhook, for POST and HEAD', async () => {
    const unknown = `${emu.baseUrl}/webhook/${'A'.repeat(43)}`;
    const reply = await post(emu, unknown, { a: 1 }, { key: null });
    expect(reply.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String) });
    expect((await call(emu, 'HEAD', unknown, { key: null })).status).toBe(404);
  });

  it('answers HEAD 200 without a body and adds nothing', async () => {
    const before = (await visible()).length;
    const head = await call(emu, 'HEAD', url, { key: null });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect((await visible()).length).toBe(before);
  });

  it('takes concurrent posts: every object of every request becomes exactly one row', async () => {
    const before = (await visible()).length;
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, r) => send(Array.from({ length: 10 }, (_, i) => ({ email: `c${r}-${i}@x.example` })))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(40).fill(200));
    const rows = await visible();
    expect(rows).toHaveLength(before + 400);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
  });

  it('needs no key, and ignores one', async () => {
    expect((await post(emu, url, { email: 'k@x.example' }, { key: emu.apiKey })).status).toBe(200);
  });

  it('fills mapped columns, nested keys included, and keeps the whole object', async () => {
    const signups = await tableInfo(emu, 'Signups');
    const object = { email: 'map@x.example', name: 'Mapped', plan: 'pro', seats: 3, address: { city: 'Lisbon', zip: '1000' }, extra: true };
    await post(emu, emu.webhooks[signups.table.id]!, object, { key: null });
    emu.flushIntake();
    const row = (await allRows(emu, signups.table.id)).find((r) => r.cells[signups.id.email!]?.value === 'map@x.example')!;
    expect(row.cells).toEqual({
      [signups.id.payload!]: { value: object },
      [signups.id.email!]: { value: 'map@x.example' },
      [signups.id.name!]: { value: 'Mapped' },
      [signups.id.plan!]: { value: 'pro' },
      [signups.id.seats!]: { value: 3 },
      [signups.id.city!]: { value: 'Lisbon' },
    });
    expect(row.createdByUserId).toBeNull();
    const partial = { email: 'partial@x.example' };
    await post(emu, emu.webhooks[signups.table.id]!, partial, { key: null });
    emu.flushIntake();
    const sparse = (await allRows(emu, signups.table.id)).find((r) => r.cells[signups.id.email!]?.value === 'partial@x.example')!;
    expect(Object.keys(sparse.cells).sort()).toEqual([signups.id.email!, signups.id.payload!].sort());
  });
});

describe('an emulator failure on the webhook', () => {
  it('answers 500 in the webhook error shape, with error naming the problem', async () => {
    class FailingIntake extends Intake {
      override add(): void {
        throw new Error('intake unavailable');
      }
    }
    const state = buildSeed('demo', Date.now());
    const clock = new EmulatorClock(Date.now);
    const live = new LiveRows(new ActionRunner({ delayMs: 0, seed: 1, now: clock.now }), clock.now);
    const { server } = createEmulatorServer({
      state,
      now: clock.now,
      clock,
      cursors: new CursorCodec(),
      limiter: new RateLimitEnforcer(false, 1),
      intake: new FailingIntake(60_000, clock.now, live),
      limits: new IntakeLimits({}, () => 0),
      live,
      readFaults: new FaultPlan([], 1),
      webhookFaults: new FaultPlan([], 1),
      requestLog: [],
      secrets: new Set(),
      webhooks: {},
      origin: () => '',
      admin: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const [, webhookId] = state.webhookIds()[0]!;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH_PREFIX}${webhookId}`;
      const reply = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(reply.statusCode).toBe(500);
      expect(await reply.body.json()).toEqual({
        statusCode: 500,
        error: 'Internal Server Error',
        message: 'emulator failure: intake unavailable',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

import { Agent, request } from 'undici';
import { describe, expect } from 'vitest';
import { FaultSpecError, parseFaultSpec, startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { allRows, call, get, post, tableByName, type CallOptions, emulatorOptions } from '../helpers.js';
import { test as it, type HarnessOptions } from '../../helpers/emulator-fixture.js';

// Fault injection (emulator only): by position and by seeded probability, on reads and on the webhook.

describe('fault specs', () => {
  it.each([
    [
      '500:0.1,429:0.1,reset:0.05',
      [
        { kind: '500', probability: 0.1 },
        { kind: '429', probability: 0.1 },
        { kind: 'reset', probability: 0.05 },
      ],
    ],
    ['stall@3', [{ kind: 'stall', from: 3, to: 3 }]],
    [
      ' 502@2-4 , 429bare:1 ',
      [
        { kind: '502', from: 2, to: 4 },
        { kind: '429bare', probability: 1 },
      ],
    ],
    ['', []],
    [
      '500pre:0.2,resetpre@2',
      [
        { kind: '500pre', probability: 0.2 },
        { kind: 'resetpre', from: 2, to: 2 },
      ],
    ],
  ])('parses %j', (spec, items) => {
    expect(parseFaultSpec(spec)).toEqual(items);
  });

  it.each(['404:0.1', '429pre@1', 'stallpre@1', '500', '500:1.5', '500:0.6,503:0.6', '500@0', '500@5-3', '500@x', 'reset:-1', '500;0.1'])(
    'refuses %j',
    (spec) => {
      expect(() => parseFaultSpec(spec)).toThrow(FaultSpecError);
    },
  );

  it('refuses a malformed spec at start', async () => {
    await expect(startEmulator({ port: 0, readFaults: 'boom@1' })).rejects.toThrow(FaultSpecError);
  });
});

describe('injected faults', () => {
  let emu: RunningEmulator | undefined;
  let start: (options: HarnessOptions) => Promise<RunningEmulator>;
  it.beforeEach(({ open }) => {
    start = async (options) => (await open(emulatorOptions(options))).emu;
    emu = undefined;
  });

  const statuses = async (n: number, path = '/workspaces', options: CallOptions = {}) => {
    const out: number[] = [];
    for (let i = 0; i < n; i += 1) out.push((await get(emu!, path, options)).status);
    return out;
  };

  it('replaces the N-th to M-th read responses, counting every read', async () => {
    emu = await start({ readFaults: '500@2,503@4-5,502@7' });
    expect(await statuses(8)).toEqual([200, 500, 200, 503, 503, 200, 502, 200]);
    const log = emu.requestLog;
    expect(log.map((entry) => entry.fault)).toEqual([undefined, '500', undefined, '503', '503', undefined, '502', undefined]);
  });

  it('sends error bodies in the surface shape, 502 as a gateway page, 429 with or without retry-after', async () => {
    emu = await start({ readFaults: '500@1,502@2,429@3,429bare@4' });
    const replies = [
      await get(emu, '/workspaces'),
      await get(emu, '/workspaces'),
      await get(emu, '/workspaces'),
      await get(emu, '/workspaces'),
    ];
    expect(replies[0]!.body).toEqual({ statusCode: 500, error: 'API Error', message: expect.any(String) });
    expect(replies[1]!.headers['content-type']).toMatch(/text\/html/);
    expect(replies[1]!.text).toContain('502 Bad Gateway');
    expect([replies[2]!.status, replies[2]!.headers['retry-after']]).toEqual([429, '1']);
    expect([replies[3]!.status, replies[3]!.headers['retry-after']]).toEqual([429, undefined]);
  });

  it('a fault on reads comes before authentication (it replaces the response)', async () => {
    emu = await start({ readFaults: '503@1' });
    expect((await get(emu, '/workspaces', { key: 'wrong' })).status).toBe(503);
  });

  it('resets the connection without a response', async () => {
    emu = await start({ readFaults: 'reset@1' });
    await expect(get(emu, '/workspaces')).rejects.toThrow(/other side closed|socket|ECONNRESET/i);
    expect((await get(emu, '/workspaces')).status).toBe(200);
    expect(emu.requestLog[0]).toMatchObject({ status: 0, fault: 'reset' });
  });

  it('stalls until the client gives up', async () => {
    emu = await start({ readFaults: 'stall@1' });
    const dispatcher = new Agent({ headersTimeout: 300 });
    const began = Date.now();
    await expect(request(`${emu.baseUrl}/workspaces`, { headers: { authorization: `Bearer ${emu.apiKey}` }, dispatcher })).rejects.toThrow(
      /timeout/i,
    );
    expect(Date.now() - began).toBeGreaterThanOrEqual(280);
    await dispatcher.close();
    expect((await get(emu, '/workspaces')).status).toBe(200);
  });

  it('draws probabilistic faults from the seed: same seed, same faults', async () => {
    const run = async (faultSeed: number) => {
      emu = await start({ readFaults: '500:0.2,429:0.1', faultSeed });
      const out = await statuses(60);
      await emu.close();
      emu = undefined;
      return out;
    };
    const first = await run(7);
    expect(await run(7)).toEqual(first);
    const faulted = first.filter((status) => status !== 200).length;
    expect(faulted).toBeGreaterThan(5);
    expect(faulted).toBeLessThan(35);
    expect(new Set(first)).toEqual(new Set([200, 500, 429]));
    expect(await run(8)).not.toEqual(first);
  });

  it('on the webhook, 500/reset come after the objects were accepted and 429 before', async () => {
    emu = await start({ webhookFaults: '500@1,reset@2,429@3,stall@5', ingestDelayMs: 60_000 });
    const inbox = await tableByName(emu, 'Inbox');
    const url = emu.webhooks[inbox.id]!;
    const send = (email: string) => post(emu!, url, { email }, { key: null });
    expect((await send('after-500@x.example')).status).toBe(500);
    await expect(send('after-reset@x.example')).rejects.toThrow();
    const throttled = await send('throttled@x.example');
    expect([throttled.status, throttled.headers['retry-after']]).toEqual([429, '1']);
    expect(throttled.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect((await call(emu, 'HEAD', url, { key: null })).status).toBe(200); // request 4: HEAD counts too
    const dispatcher = new Agent({ headersTimeout: 200 });
    await expect(
      request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"stalled@x.example"}', dispatcher }),
    ).rejects.toThrow(/timeout/i);
    await dispatcher.close();
    emu.flushIntake();
    const emails = (await allRows(emu, inbox.id)).map(
      (row) => Object.values(row.cells).find((cell) => typeof cell.value === 'string')?.value,
    );
    expect(emails.sort()).toEqual(['after-500@x.example', 'after-reset@x.example', 'stalled@x.example']);
    const webhookLog = emu.requestLog.filter((entry) => entry.bucket === 'webhook');
    expect(webhookLog.map((entry) => entry.fault)).toEqual(['500', 'reset', '429', undefined, 'stall']);
  });

  it('on the webhook, 500pre/502pre/503pre/resetpre fail before anything is stored', async () => {
    emu = await start({ webhookFaults: '500pre@1,503pre@2,resetpre@3,502pre@4', ingestDelayMs: 60_000 });
    const inbox = await tableByName(emu, 'Inbox');
    const url = emu.webhooks[inbox.id]!;
    const send = (email: string) => post(emu!, url, { email }, { key: null });
    const refused = await send('pre-500@x.example');
    expect([refused.status, refused.body]).toEqual([500, { statusCode: 500, error: 'Internal Server Error', message: expect.any(String) }]);
    expect((await send('pre-503@x.example')).status).toBe(503);
    await expect(send('pre-reset@x.example')).rejects.toThrow();
    expect((await send('pre-502@x.example')).text).toContain('502 Bad Gateway');
    expect((await send('stored@x.example')).status).toBe(200);
    emu.flushIntake();
    const rows = await allRows(emu, inbox.id);
    expect(rows.map((row) => (row.cells[Object.keys(row.cells)[0]!]!.value as { email: string }).email)).toEqual(['stored@x.example']);
    const webhookLog = emu.requestLog.filter((entry) => entry.bucket === 'webhook');
    expect(webhookLog.map((entry) => [entry.fault, entry.objects])).toEqual([
      ['500pre', undefined],
      ['503pre', undefined],
      ['resetpre', undefined],
      ['502pre', undefined],
      [undefined, 1],
    ]);
  });

  it('on reads, a -pre kind is its plain kind', async () => {
    emu = await start({ readFaults: '503pre@1,500pre@2' });
    expect(await statuses(3)).toEqual([503, 500, 200]);
  });
});

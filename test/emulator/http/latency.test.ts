import { describe, expect } from 'vitest';
import { parseLatency, type RunningEmulator } from '../../../src/emulator/index.js';
import { test as it } from '../../helpers/emulator-fixture.js';
import { call, emulatorOptions, get } from '../helpers.js';

// `tds emulator --latency MS[,JITTER]`: every request of the service takes the round trip (times are
// asserted from below only: a busy machine makes them longer, never shorter).

describe('parseLatency', () => {
  it.each([
    ['200', { ms: 200, jitterMs: 0 }],
    ['200,20', { ms: 200, jitterMs: 20 }],
    [' 50 , 50 ', { ms: 50, jitterMs: 50 }],
    ['0', { ms: 0, jitterMs: 0 }],
  ])('%s', (text, spec) => expect(parseLatency(text)).toEqual(spec));

  it.each([
    ['', /not MS or MS,JITTER/],
    ['-5', /not MS or MS,JITTER/],
    ['1.5', /not MS or MS,JITTER/],
    ['200,', /not MS or MS,JITTER/],
    ['100,200', /jitter \(200 ms\) cannot be more than the latency \(100 ms\)/],
    ['60001', /more than 60000 ms/],
  ])('refuses %j', (text, message) => expect(() => parseLatency(text)).toThrow(message));
});

describe('an emulator 80 ms away', () => {
  const ROUND_TRIP_MS = 80;
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ latency: { ms: ROUND_TRIP_MS, jitterMs: 0 } }))).emu;
  });

  it('answers each request of the service a round trip later, key endpoints and webhook alike', async () => {
    const started = performance.now();
    const reply = await get(emu, '/workspaces');
    const webhook = await call(emu, 'HEAD', Object.values(emu.webhooks)[0]!, { key: null });
    const elapsed = performance.now() - started;
    expect([reply.status, webhook.status]).toEqual([200, 200]);
    expect(elapsed).toBeGreaterThanOrEqual(2 * ROUND_TRIP_MS - 2);
    for (const entry of emu.requestLog.slice(-2)) expect(entry.durationMs).toBeGreaterThanOrEqual(ROUND_TRIP_MS - 2);
  });

  it('delays requests side by side, not one after another: all are in flight at once', async () => {
    const before = emu.requestLog.length;
    await Promise.all(Array.from({ length: 6 }, () => get(emu, '/workspaces')));
    const entries = emu.requestLog.slice(before);
    expect(entries).toHaveLength(6);
    const lastArrival = Math.max(...entries.map((entry) => entry.at));
    // every request arrived before the first answer left
    for (const entry of entries) expect(entry.at + entry.durationMs).toBeGreaterThanOrEqual(lastArrival);
  });
});

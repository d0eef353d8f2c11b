import { describe, expect, vi } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { call, post, sleep, tableByName, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';
import { Intake } from '../../../src/emulator/webhook/intake.js';
import type { LiveRows } from '../../../src/emulator/store/live-rows.js';
import type { TableRec } from '../../../src/emulator/store/model.js';

// docs/service-api.md 4.7 rule 4: rows show a quiet delay after the last request, at most 6 x that while requests
// keep arriving; rowCount counts only visible rows.

describe('asynchronous intake', () => {
  const DELAY = 300;
  let emu: RunningEmulator;
  let inboxId: string;
  let url: string;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ ingestDelayMs: DELAY }))).emu;
    inboxId = (await tableByName(emu, 'Inbox')).id;
    url = emu.webhooks[inboxId]!;
  });

  const rowCount = async () => (await tableByName(emu, 'Inbox')).rowCount;
  const push = (n = 1) =>
    post(
      emu,
      url,
      Array.from({ length: n }, (_, i) => ({ email: `r${i}@x.example` })),
      { key: null },
    );

  it('shows rows only after the quiet delay since the last request', async () => {
    const start = await rowCount();
    await push(2);
    await sleep(DELAY / 2);
    await push(1);
    await sleep(DELAY / 2);
    await push(1);
    const last = Date.now();
    // the rows show together, once the quiet delay after the last request has passed
    const counts: number[] = [];
    await vi.waitFor(
      async () => {
        counts.push(await rowCount());
        expect(counts.at(-1)).toBe(start + 4);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(Date.now() - last).toBeGreaterThanOrEqual(DELAY - 20);
    expect(counts.every((count) => count === start || count === start + 4)).toBe(true);
  });

  it('shows rows at most 6 x the delay after the first pending one while requests keep arriving', async () => {
    const start = await rowCount();
    const began = Date.now();
    let appeared = 0;
    // requests every DELAY / 4 until the rows show: they do, although requests keep arriving (that they show
    // by 6 x DELAY, in time, is intake-scale.test.ts's, on fake timers); at most 60 requests (15 x DELAY)
    for (let sent = 0; !appeared && sent < 60; sent += 1) {
      await push(1);
      if (!appeared && (await rowCount()) > start) appeared = Date.now() - began;
      await sleep(DELAY / 4);
    }
    expect(appeared).toBeGreaterThanOrEqual(DELAY * 6 - 50);
    emu.flushIntake();
  });

  it('flushes the rows it holds on demand, also through POST /_emulator/flush', async () => {
    const start = await rowCount();
    await push(3);
    expect(await rowCount()).toBe(start);
    emu.flushIntake();
    expect(await rowCount()).toBe(start + 3);
    await push(2);
    const flushed = await call(emu, 'POST', emu.baseUrl.replace('/v1', '/_emulator/flush'), { key: null });
    expect(flushed.status).toBe(200);
    expect(await rowCount()).toBe(start + 5);
  });
});

describe('the intake before an answer', () => {
  /** Blocks this thread `ms` milliseconds, as a busy event loop holds a timer past its time. */
  const hold = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('shows the rows whose time has come before any request is answered, whether or not their timer has run', () => {
    const arrived: number[] = [];
    const live = { arrive: (_table: unknown, rows: readonly unknown[]) => void arrived.push(rows.length) } as unknown as LiveRows;
    const intake = new Intake(20, Date.now, live);
    const table = { id: 'tbl_1', fields: [] } as unknown as TableRec;
    intake.add(table, Buffer.from(JSON.stringify([{ a: 1 }, { a: 2 }])));
    intake.showDue();
    expect(arrived).toEqual([]);
    hold(30);
    // no timer can have run: this test has not let go of the thread since the request
    intake.showDue();
    expect(arrived).toEqual([2]);
    expect(intake.heldRows('tbl_1')).toBe(0);
  });
});

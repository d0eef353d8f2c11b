import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveRows } from '../../../src/emulator/store/live-rows.js';
import type { TableRec } from '../../../src/emulator/store/model.js';
import { Intake } from '../../../src/emulator/webhook/intake.js';

// Issue 20: the emulator's intake runs on the same rate scale as the client's waits for it, so a test
// that gives both one scale (--rate-scale X, TDS_RATE_SCALE X) is honest: the quiet delay and the
// longest window (6 x the delay) are in service time, divided by the scale.

const table = { id: 'tbl_1', fields: [] } as unknown as TableRec;

function intake(delayMs: number, rateScale?: number) {
  const arrived: number[] = [];
  const live = { arrive: (_table: TableRec, rows: readonly unknown[]) => arrived.push(rows.length) } as unknown as LiveRows;
  return { intake: new Intake(delayMs, () => 0, live, rateScale), arrived };
}

describe('Intake timing with a rate scale', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A posted body of these objects. */
  const body = (objects: object[]): Buffer => Buffer.from(JSON.stringify(objects));

  it.each([
    [5000, 1, 5000],
    [5000, 20, 250],
    [1000, 20, 50],
    [5000, 40, 125],
  ])('a quiet delay of %i service ms at scale %i shows rows after %i ms', (delay, scale, quiet) => {
    const { intake: it, arrived } = intake(delay, scale);
    it.add(table, body([{ a: 1 }, { a: 2 }]));
    vi.advanceTimersByTime(quiet - 1);
    expect(arrived).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(arrived).toEqual([2]);
  });

  it('while requests keep arriving, shows every row it holds 6 x the scaled delay after the first', () => {
    const { intake: it, arrived } = intake(5000, 20); // quiet 250 ms, longest 1,500 ms
    for (let t = 0; t < 1500; t += 200) {
      it.add(table, body([{ t }]));
      vi.advanceTimersByTime(200);
      if (t + 200 < 1500) expect(arrived).toEqual([]);
    }
    // the 8th request came at 1,400 ms: all eight show together at 1,500 ms
    expect(arrived).toEqual([8]);
  });

  it('without a scale, the delay is real time', () => {
    const { intake: it, arrived } = intake(300);
    it.add(table, body([{ a: 1 }]));
    vi.advanceTimersByTime(299);
    expect(arrived).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(arrived).toEqual([1]);
  });
});

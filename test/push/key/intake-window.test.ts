import { describe, expect, it } from 'vitest';
import {
  INTAKE_LONGEST_MS,
  missingProof,
  serviceAheadAtLeast,
  serviceAheadAtMost,
  type IntakeEvidence,
  type VisibleRow,
} from '../../../src/push/key/intake-window.js';

// Issue 20: a key sent to the webhook may be declared missing from the table only once its request's
// rows would surely show. Times in ms; the uncertain request left at 1,000 and its answer came at 1,100.

const W = 30_000; // the window as a run waits it
const uncertain = { start: 1_000, end: 1_100 };

const evidence = (over: Partial<IntakeEvidence>): IntakeEvidence => ({
  now: 2_000,
  windowMs: W,
  ownRowVisible: false,
  visible: [],
  ...over,
});

/** A row of one of our requests, whose createdAt (service clock) is `skew` ahead of the request's start. */
const row = (start: number, end: number, skew: number, delay = 0): VisibleRow => ({
  request: { start, end },
  createdAt: start + delay + skew,
});

describe('missingProof', () => {
  it.each<[string, Partial<IntakeEvidence>, ReturnType<typeof missingProof>]>([
    ['nothing seen, well inside the window', {}, undefined],
    ['nothing seen, 1 ms before the window ends', { now: 1_100 + W - 1 }, undefined],
    ['the window has passed since the request ended', { now: 1_100 + W }, 'window'],
    ['the window has passed since it started, not since it ended', { now: 1_000 + W }, undefined],
    ['a row of the request itself shows (its rows come together)', { ownRowVisible: true }, 'own-row'],
    ['a request of ours that left after this one ended shows', { visible: [row(1_101, 1_150, 0)] }, 'later-request'],
    ['one that left the very ms it ended: not provably later', { visible: [row(1_100, 1_150, 0)] }, undefined],
    ['one that left while it was in flight (the intake may have had it first)', { visible: [row(1_050, 1_300, 0)] }, undefined],
    ['an earlier run request (start unknown)', { visible: [{ request: { start: -Infinity, end: 5_000 }, createdAt: 9e12 }] }, undefined],
  ])('%s', (_name, over, proof) => {
    expect(missingProof(uncertain, evidence(over))).toBe(proof);
  });

  describe("a later row by the service's clock, bounded by rows of our own requests", () => {
    // the service's clock runs 10 minutes behind ours; our request of 500–600 arrived at 550, createdAt 550 − 600,000
    const skew = -600_000;
    const anchor = row(500, 600, skew, 50);

    it.each<[string, number | undefined, ReturnType<typeof missingProof>]>([
      // the uncertain request arrived by 1,100 ours, at most 1,100 + (anchor's createdAt − its start) on the service's
      ['a row created after that bound', 1_100 + skew + 50 + 1, 'later-row'],
      ['a row created at the bound', 1_100 + skew + 50, undefined],
      ['the newest row was created before the request could arrive', 1_050 + skew, undefined],
      ['no newest row read', undefined, undefined],
    ])('%s', (_name, newestCreatedAt, proof) => {
      const over = { visible: [anchor], ...(newestCreatedAt !== undefined ? { newestCreatedAt } : {}) };
      expect(missingProof(uncertain, evidence(over))).toBe(proof);
    });

    it("never compares our clock with the service's as they are", () => {
      // the service 10 minutes ahead: a row at 1,100 + 5 min on its clock looks later than 1,100, but came 5 minutes before
      const ahead = row(500, 600, 600_000, 50);
      expect(missingProof(uncertain, evidence({ visible: [ahead], newestCreatedAt: 1_100 + 300_000 }))).toBeUndefined();
      expect(missingProof(uncertain, evidence({ visible: [ahead], newestCreatedAt: 1_100 + 600_050 + 1 }))).toBe('later-row');
      // 10 minutes behind: a row that looks 10 minutes older than the request came after it
      expect(missingProof(uncertain, evidence({ visible: [anchor], newestCreatedAt: 1_200 + skew }))).toBe('later-row');
    });

    it('without a row of ours, the newest row proves nothing', () => {
      expect(missingProof(uncertain, evidence({ newestCreatedAt: Number.MAX_SAFE_INTEGER }))).toBeUndefined();
    });
  });
});

describe('serviceAheadAtMost', () => {
  it.each<[string, VisibleRow[], number | undefined]>([
    ['no rows', [], undefined],
    ['one row: its createdAt less its request start', [row(1_000, 1_200, 5_000, 100)], 5_100],
    ['several: the tightest bound', [row(1_000, 1_200, 5_000, 100), row(2_000, 2_100, 5_000, 10)], 5_010],
    ['a behind clock is a negative bound', [row(1_000, 1_200, -5_000, 100)], -4_900],
    ['rows of requests whose start is unknown are left out', [{ request: { start: -Infinity, end: 0 }, createdAt: 0 }], undefined],
  ])('%s', (_name, visible, bound) => {
    expect(serviceAheadAtMost(visible)).toBe(bound);
  });
});

describe('serviceAheadAtLeast', () => {
  // a row's createdAt came no later than the window after its request ended
  it.each<[string, VisibleRow[], number | undefined]>([
    ['no rows', [], undefined],
    ['one row: its createdAt less its request end and the window', [row(1_000, 1_200, 5_000, 100)], 1_100 + 5_000 - 1_200 - W],
    ['several: the tightest bound', [row(1_000, 1_200, 5_000, 100), row(2_000, 2_010, 5_000, 10)], 5_000 - W],
    ['a request of an earlier run counts too (its end is known)', [{ request: { start: -Infinity, end: 100 }, createdAt: 600 }], 500 - W],
  ])('%s', (_name, visible, bound) => {
    expect(serviceAheadAtLeast(visible, W)).toBe(bound);
  });

  it('brackets the real offset with serviceAheadAtMost, whatever the clocks say', () => {
    for (const skew of [-600_000, 0, 3_600_000]) {
      const visible = [row(1_000, 1_200, skew, 100), row(5_000, 5_050, skew, 20)];
      expect(serviceAheadAtLeast(visible, W)).toBeLessThanOrEqual(skew);
      expect(serviceAheadAtMost(visible)).toBeGreaterThanOrEqual(skew);
    }
  });
});

it('the longest window is "about 30 s" with room for the "about"', () => {
  expect(INTAKE_LONGEST_MS).toBeGreaterThan(30_000);
  expect(INTAKE_LONGEST_MS).toBeLessThanOrEqual(40_000);
});

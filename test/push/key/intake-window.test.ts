import { describe, expect, it } from 'vitest';
import {
  INTAKE_LONGEST_MS,
  missingProof,
  serviceAheadAtLeast,
  serviceAheadAtMost,
  type IntakeEvidence,
  type VisibleRow,
  type IntakeTiming,
  watchIntake,
  type Watched,
  type WatchOptions,
} from '../../../src/push/key/intake-window.js';
import { DEFAULT_INGEST_DELAY_MS } from '../../../src/emulator/options.js';
import { Intake } from '../../../src/emulator/webhook/intake.js';
import { INTAKE_QUIET_MS } from '../../../src/service/index.js';
import { FakeIntake } from './fake-intake.js';
import { INTAKE_RATE_SCALE } from '../../helpers/rate-scale.js';

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

it('the longest window outlasts the longest the emulator holds a row ("about 30 s"), with room for the "about" and no more', () => {
  // the emulator is written from the service's docs apart from the client: its intake shows a row at most MAX_FACTOR quiet delays after it took it
  const emulatorLongest = Intake.MAX_FACTOR * DEFAULT_INGEST_DELAY_MS;
  expect(INTAKE_LONGEST_MS).toBeGreaterThan(emulatorLongest);
  expect(INTAKE_LONGEST_MS).toBeLessThanOrEqual(emulatorLongest * 1.5);
});

// Issue 20: the rows of a request are looked for until each key is found or provably missing, and a
// key is declared missing only by a lookup that began after the proof was seen. TDS_RATE_SCALE 30 (INTAKE_RATE_SCALE):
// quiet period 167 ms, longest window 1,200 ms, rowCount polled every 33 ms.

const SCALE = INTAKE_RATE_SCALE;
const QUIET = INTAKE_QUIET_MS / SCALE;
const WINDOW = INTAKE_LONGEST_MS / SCALE;
const INTAKE: IntakeTiming = { windowMs: WINDOW, quietMs: QUIET, pollMs: 1000 / SCALE };

const keys = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `k${from + i}`);

function options(intake: FakeIntake, lastRequestAt: number, visible: VisibleRow[] = []): WatchOptions {
  return { lookups: intake.api, use: 'reconcile', intake: INTAKE, signal: new AbortController().signal, lastRequestAt, visible };
}

/** A request that left 5 ms ago and answered now, carrying `keys`. */
function justSent(carried: string[]): Watched {
  const end = Date.now();
  return { request: { start: end - 5, end }, keys: carried };
}

describe('watchIntake', () => {
  it('finds keys that show a quiet period after the last request with one lookup, made after that period', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 3));
    intake.stored(target.keys, target.request.end, target.request.end + QUIET / 2);
    const [watch] = await watchIntake([target], [], options(intake, target.request.end));
    expect(watch).toEqual({ found: new Set(keys(1, 3)) });
    expect(intake.lookups).toHaveLength(1);
    expect(intake.lookups[0]!.at).toBeGreaterThanOrEqual(target.request.end + QUIET);
  });

  it('(issue 20) keys held in the intake past the quiet period by other traffic are waited for, and found', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 3));
    // other requests keep the intake open: nothing shows until it takes everything in at once
    const flush = target.request.end + WINDOW / 2;
    intake.other(target.request.end - 100, flush);
    intake.stored(target.keys, target.request.end, flush);
    intake.other(target.request.end + 100, flush);
    const [watch] = await watchIntake([target], [], options(intake, target.request.end));
    expect(watch).toEqual({ found: new Set(keys(1, 3)) });
    // the lookups before the flush found nothing and decided nothing; the one after it found them
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(flush);
    expect(intake.lookups.slice(0, -1).every((lookup) => lookup.found.length === 0)).toBe(true);
  });

  it('declares keys that never show missing only by a lookup begun once the window has passed since the request ended', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 2));
    const [watch] = await watchIntake([target], [], options(intake, target.request.end));
    expect(watch).toEqual({ found: new Set(), proof: 'window' });
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(target.request.end + WINDOW);
  });

  it('decides a request of an earlier run whose window passed long ago with its first lookup, at once', async () => {
    const intake = new FakeIntake();
    const long = Date.now() - 60_000;
    const [watch] = await watchIntake([{ request: { start: -Infinity, end: long }, keys: ['k1'] }], [], options(intake, long));
    expect(watch).toEqual({ found: new Set(), proof: 'window' });
    expect(intake.lookups).toHaveLength(1);
  });

  it('some keys of the request show: the others are missing (its rows come together), decided by the next lookup', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 3));
    intake.stored(['k1', 'k3'], target.request.end, target.request.end);
    const [watch] = await watchIntake([target], [], options(intake, target.request.end));
    expect(watch).toEqual({ found: new Set(['k1', 'k3']), proof: 'own-row' });
    expect(intake.lookups.map((lookup) => lookup.keys)).toEqual([keys(1, 3), ['k2']]);
  });

  it('a request of ours that left after this one had ended shows: this one is decided', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 2));
    const later: Watched = { request: { start: target.request.end + 1, end: target.request.end + 3 }, keys: ['w1'] };
    intake.stored(['w1'], later.request.start, target.request.end);
    const [watch] = await watchIntake([target], [later], options(intake, later.request.end));
    expect(watch).toEqual({ found: new Set(), proof: 'later-request' });
    // the witness is looked for until it shows; the decision comes from the lookup after that
    expect(intake.lookups.map((lookup) => lookup.keys)).toEqual([
      ['k1', 'k2', 'w1'],
      ['k1', 'k2'],
    ]);
  });

  it('a witness that left while the request was in flight proves nothing', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 1));
    const concurrent: Watched = { request: { start: target.request.start + 1, end: target.request.end + 3 }, keys: ['w1'] };
    intake.stored(['w1'], concurrent.request.start, target.request.end);
    const [watch] = await watchIntake([target], [concurrent], options(intake, concurrent.request.end));
    expect(watch!.proof).toBe('window');
  });

  describe("rows by the service's clock (10 minutes ahead of ours)", () => {
    const AHEAD = 600_000;

    /** One of our earlier requests, visible with a createdAt 20 ms after it left: the clock bound. */
    const anchor = (at: number): VisibleRow => ({ request: { start: at - 50, end: at - 10 }, createdAt: at - 30 + AHEAD });

    it("another writer's row created after the request could arrive shows: the keys are missing, before the window", async () => {
      const intake = new FakeIntake(0, AHEAD);
      const target = justSent(keys(1, 2));
      intake.other(target.request.end + 100, target.request.end + 2 * QUIET);
      const [watch] = await watchIntake([target], [], options(intake, target.request.end, [anchor(target.request.start)]));
      expect(watch).toEqual({ found: new Set(), proof: 'later-row' });
      expect(intake.newestReads.length).toBeGreaterThan(0);
      // the deciding lookup began after the newest row was read
      expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(intake.newestReads.at(-1)!);
    });

    it('a row that looks later only by comparing the clocks as they are proves nothing: the keys that show later are found', async () => {
      const intake = new FakeIntake(0, AHEAD);
      const target = justSent(keys(1, 2));
      // arrived before the request, and visible before it: 10 minutes "after" it on the service's clock
      intake.other(target.request.start - 20, target.request.end);
      intake.stored(target.keys, target.request.end, target.request.end + 3 * QUIET);
      const [watch] = await watchIntake([target], [], options(intake, target.request.end, [anchor(target.request.start)]));
      expect(watch).toEqual({ found: new Set(keys(1, 2)) });
    });
  });

  it('looks again when rowCount moves, at most once a quiet period', async () => {
    const intake = new FakeIntake();
    const target = justSent(keys(1, 1));
    // rows of others show every 10 ms: rowCount never holds still
    for (let t = 0; t < WINDOW; t += 10) intake.other(target.request.end + t, target.request.end + t);
    intake.stored(['k1'], target.request.end, target.request.end + 3 * QUIET);
    const [watch] = await watchIntake([target], [], options(intake, target.request.end));
    expect(watch).toEqual({ found: new Set(['k1']) });
    const times = intake.lookups.map((lookup) => lookup.at);
    expect(times.length).toBeGreaterThan(1);
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(QUIET - 1);
  });

  it('stops when the run is interrupted', async () => {
    const intake = new FakeIntake();
    const controller = new AbortController();
    const target = justSent(['k1']);
    setTimeout(() => controller.abort(new Error('stop')), 10);
    const error = await watchIntake([target], [], { ...options(intake, target.request.end), signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).toEqual(new Error('stop'));
    expect(intake.lookups).toEqual([]);
  });
});

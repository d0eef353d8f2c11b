import { describe, expect, it } from 'vitest';
import { INTAKE_LONGEST_MS, type IntakeTiming, type VisibleRow } from '../../../src/push/key/intake-window.js';
import { watchIntake, type Watched, type WatchOptions } from '../../../src/push/key/intake-watch.js';
import { INTAKE_QUIET_MS } from '../../../src/service/index.js';
import { FakeIntake } from './fake-intake.js';
import { INTAKE_RATE_SCALE } from '../../helpers/rate-scale.js';

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
    // (timers may wake a fraction of a ms early by Date.now())
    expect(intake.lookups[0]!.at).toBeGreaterThanOrEqual(target.request.end + QUIET - 1);
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

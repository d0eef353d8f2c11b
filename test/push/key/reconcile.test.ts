import { describe, expect, it, vi } from 'vitest';
import { TdsError } from '../../../src/core/errors.js';
import { INTAKE_LONGEST_MS, type IntakeTiming, type SentRequest } from '../../../src/push/key/intake-window.js';
import { KeyReconciler, type ReconcileOptions, type SentBatch } from '../../../src/push/key/reconcile.js';
import { makeBatch, type Batch } from '../../../src/push/plan/batch.js';
import { INTAKE_QUIET_MS } from '../../../src/service/index.js';
import { FakeIntake } from './fake-intake.js';
import { INTAKE_RATE_SCALE } from '../../helpers/rate-scale.js';

// TDS_RATE_SCALE 30 (INTAKE_RATE_SCALE): the quiet period is 167 ms, the longest window 1,200 ms.
const SCALE = INTAKE_RATE_SCALE;
const QUIET = INTAKE_QUIET_MS / SCALE;
const WINDOW = INTAKE_LONGEST_MS / SCALE;
const INTAKE: IntakeTiming = { windowMs: WINDOW, quietMs: QUIET, pollMs: 1000 / SCALE };

/** Batch `number` holding records first…first+count-1, keyed `k<record>` (a record in `keyless` has no key). */
function batch(number: number, first: number, count: number, keyless: number[] = []): Batch {
  const items = Array.from({ length: count }, (_, i) => {
    const record = first + i;
    const json = JSON.stringify({ r: record });
    return { record, json, bytes: json.length, ...(keyless.includes(record) ? {} : { key: `k${record}` }) };
  });
  return makeBatch(number, '', items);
}

const keysOf = (b: Batch): string[] => b.items.flatMap((item) => (item.key ? [item.key] : []));

/** A request that left `ago + 5` ms ago and answered `ago` ms ago. */
function sentAgo(ago = 0): SentRequest {
  const end = Date.now() - ago;
  return { start: end - 5, end };
}

/** A batch sent just now, as the webhook saw it: stored (visible after `visibleIn` ms) or not. */
function uncertain(intake: FakeIntake, b: Batch, visibleIn?: number, keys = keysOf(b)): SentBatch {
  const sent = sentAgo();
  if (visibleIn !== undefined) intake.stored(keys, sent.end, sent.end + visibleIn);
  return { batch: b, sent };
}

function setup(intake: FakeIntake, options: Partial<ReconcileOptions> = {}) {
  const lines: string[] = [];
  const reconciler = new KeyReconciler({
    lookups: intake.api,
    field: 'email',
    intake: INTAKE,
    signal: new AbortController().signal,
    log: (line) => lines.push(line),
    ...options,
  });
  return { reconciler, lines };
}

const records = (sets: Array<ReadonlySet<number>>): number[][] => sets.map((set) => [...set].sort((a, b) => a - b));

describe('KeyReconciler.found', () => {
  it('returns, per batch, the records whose keys the table holds, found after the quiet period', async () => {
    const intake = new FakeIntake();
    const { reconciler, lines } = setup(intake);
    const entries = [
      uncertain(intake, batch(1, 1, 3), 0, ['k2', 'k3']),
      uncertain(intake, batch(2, 4, 3)),
      uncertain(intake, batch(3, 7, 3, [8]), 0, ['k7']),
    ];
    const lastRequestAt = Date.now();
    const found = await reconciler.found(entries, lastRequestAt);
    expect(records(found)).toEqual([[2, 3], [], [7]]);
    expect(intake.lookups[0]!.at).toBeGreaterThanOrEqual(lastRequestAt + QUIET);
    expect(intake.lookups[0]!.keys).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k9']);
    expect(lines[0]).toBe('reconciling 8 keys of uncertain records: 8 keys in one query');
    expect(lines.at(-1)).toBe('reconciled by key: 3 of 8 keys found in the table');
  });

  it('(issue 20) keys that show only after the quiet period (other traffic holds the intake open) are found, not sent again', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const entry = uncertain(intake, batch(1, 1, 3), WINDOW / 2);
    intake.other(entry.sent.end - 50, entry.sent.end + WINDOW / 2);
    expect(records(await reconciler.found([entry], entry.sent.end))).toEqual([[1, 2, 3]]);
  });

  it('keys of a request that was not stored are missing once its window has passed, and sent again', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const entry = uncertain(intake, batch(1, 1, 2));
    expect(records(await reconciler.found([entry], entry.sent.end))).toEqual([[]]);
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(entry.sent.end + WINDOW);
  });

  it('the latest request taken in, sent after the uncertain one ended, is looked for: once it shows, the missing keys are decided', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const entry = uncertain(intake, batch(2, 4, 2));
    const later = { start: entry.sent.end + 1, end: entry.sent.end + 2 };
    reconciler.noteAccepted(batch(1, 1, 3), { start: entry.sent.start - 10, end: entry.sent.start - 5 });
    reconciler.noteAccepted(batch(3, 6, 3), later);
    intake.stored(['k1', 'k2', 'k3'], entry.sent.start - 8, entry.sent.end);
    intake.stored(['k6'], later.start, entry.sent.end);
    expect(records(await reconciler.found([entry], later.end))).toEqual([[]]);
    // the sample (batch 1's first keys) and the witness (batch 3's first key) are looked up along
    expect(intake.lookups[0]!.keys).toEqual(['k4', 'k5', 'k1', 'k2', 'k3', 'k6']);
    expect(intake.lookups).toHaveLength(2);
    expect(intake.lookups[1]!.keys).toEqual(['k4', 'k5']);
  });

  it('fails (PUSH_INCOMPLETE) when the keys of a batch taken in do not show: the webhook does not fill the column', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    reconciler.noteAccepted(batch(4, 10, 5), sentAgo(10_000));
    const entry = uncertain(intake, batch(5, 20, 2), 0);
    const error = await reconciler.found([entry], entry.sent.end).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TdsError);
    expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
    expect((error as TdsError).exitCode).toBe(7);
    expect((error as TdsError).message).toBe(
      'cannot reconcile uncertain records by key: the column "Email" does not show the keys of records 10–14, which the webhook took in',
    );
    expect((error as TdsError).hint).toContain('"email"');
    expect((error as TdsError).hint).toContain('the uncertain batches are left in the journal');
  });

  it('takes the first batch with keys as the sample, from this run or an earlier one', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    reconciler.noteAccepted(batch(1, 1, 2, [1, 2]), sentAgo(10_000)); // no keys: no sample
    reconciler.noteAccepted(batch(2, 3, 3), { start: -Infinity, end: Date.now() - 10_000 }, false);
    reconciler.noteAccepted(batch(3, 6, 3), sentAgo(10_000));
    intake.stored(['k3'], 0, 0);
    const entry = uncertain(intake, batch(4, 9, 1), 0);
    await reconciler.found([entry], entry.sent.end);
    expect(intake.lookups[0]!.keys).toEqual(['k9', 'k3', 'k4', 'k5']);
  });

  describe('with no batch known to be taken in', () => {
    it('fails when the table grew by every record sent, yet shows none of the uncertain keys', async () => {
      const intake = new FakeIntake(100);
      const { reconciler } = setup(intake);
      reconciler.begin(100);
      for (let i = 0; i < 3; i += 1) intake.other(0, 0);
      const entry = { batch: batch(1, 1, 3), sent: sentAgo(10_000) };
      const error = await reconciler.found([entry], entry.sent.end).catch((e: unknown) => e);
      expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
      expect((error as TdsError).message).toContain('the keys of the uncertain records 1–3');
    });

    it('counts the records an earlier reconciliation found among the rows of this run', async () => {
      const intake = new FakeIntake(100);
      const { reconciler } = setup(intake);
      reconciler.begin(100);
      const first = { batch: batch(1, 1, 3), sent: sentAgo(10_000) };
      intake.stored(['k1', 'k2', 'k3'], first.sent.end, first.sent.end);
      expect(records(await reconciler.found([first], first.sent.end))).toEqual([[1, 2, 3]]);
      // the table grew by batch 1's three rows only: batch 2's records were not taken in
      const second = { batch: batch(2, 4, 3), sent: sentAgo(10_000) };
      expect(records(await reconciler.found([second], second.sent.end))).toEqual([[]]);
    });

    it('sends the records again when the table did not grow by them', async () => {
      const intake = new FakeIntake(100);
      const { reconciler } = setup(intake);
      reconciler.begin(100);
      const entry = { batch: batch(1, 1, 3), sent: sentAgo(10_000) };
      expect(records(await reconciler.found([entry], entry.sent.end))).toEqual([[]]);
    });

    it('does not judge by rowCount without the count from before the run', async () => {
      const intake = new FakeIntake(10 ** 6);
      const { reconciler } = setup(intake);
      const entry = { batch: batch(1, 1, 3), sent: sentAgo(10_000) };
      expect(records(await reconciler.found([entry], entry.sent.end))).toEqual([[]]);
    });
  });

  it('stops waiting when the run is interrupted', async () => {
    const intake = new FakeIntake();
    const controller = new AbortController();
    // unscaled: the quiet period alone would take 5 s
    const { reconciler } = setup(intake, {
      signal: controller.signal,
      intake: { windowMs: INTAKE_LONGEST_MS, quietMs: INTAKE_QUIET_MS, pollMs: 1000 },
    });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    const entry = uncertain(intake, batch(1, 1, 1));
    expect(await reconciler.found([entry], entry.sent.end).catch((e: unknown) => e)).toEqual(new Error('stop'));
    expect(intake.lookups).toEqual([]);
  });
});

describe('KeyReconciler.checkDue and checkKeysVisible', () => {
  it('is due once the longest window of the first batch taken in has passed, until checked', async () => {
    // the window passes on the test's clock, at once
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const intake = new FakeIntake();
      const { reconciler } = setup(intake);
      expect(reconciler.checkDue).toBe(false);
      const sent = sentAgo();
      reconciler.noteAccepted(batch(1, 1, 3), sent);
      intake.stored(['k1', 'k2', 'k3'], sent.end, sent.end);
      expect(reconciler.checkDue).toBe(false);
      vi.setSystemTime(Date.now() + WINDOW + 5);
      expect(reconciler.checkDue).toBe(true);
      await reconciler.checkKeysVisible();
      expect(intake.lookups.map((lookup) => lookup.keys)).toEqual([['k1', 'k2', 'k3']]);
      expect(reconciler.checkDue).toBe(false);
      // checked once: no more lookups
      await reconciler.checkKeysVisible();
      expect(intake.lookups).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is due for a batch an earlier run had taken in once its window from the journaled time has passed', () => {
    const intake = new FakeIntake();
    const recent = setup(intake).reconciler;
    recent.noteAccepted(batch(1, 1, 3), { start: -Infinity, end: Date.now() }, false);
    expect(recent.checkDue).toBe(false);
    const old = setup(intake).reconciler;
    old.noteAccepted(batch(1, 1, 3), { start: -Infinity, end: Date.now() - WINDOW }, false);
    expect(old.checkDue).toBe(true);
  });

  it('fails (PUSH_INCOMPLETE) when none of the keys of the batch taken in show', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    reconciler.noteAccepted(batch(1, 4, 3), { start: -Infinity, end: Date.now() - 10_000 }, false);
    const error = await reconciler.checkKeysVisible().catch((e: unknown) => e);
    expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
    expect((error as TdsError).message).toBe(
      'the keys cannot be found in the table: the column "Email" does not show the keys of records 4–6, which the webhook took in',
    );
    expect((error as TdsError).hint).not.toContain('journal');
    // still not confirmed: due again
    expect(reconciler.checkDue).toBe(true);
  });

  it('keys that do not show while the rows taken in are not all in rowCount yet are looked for again once they are', async () => {
    // an intake slower than the window this run waits (an emulator not given the same scale)
    const intake = new FakeIntake(10);
    const { reconciler } = setup(intake);
    reconciler.begin(10);
    const sent = sentAgo(10_000);
    reconciler.noteAccepted(batch(1, 1, 3), sent);
    intake.stored(['k1', 'k2', 'k3'], sent.end, Date.now() + 300);
    await reconciler.checkKeysVisible();
    expect(intake.lookups.at(-1)!.found).toEqual(['k1', 'k2', 'k3']);
    expect(reconciler.checkDue).toBe(false);
  });
});

/** A run's two batches of two keys taken in: `a` left 40 ms ago, `b` after a ended, and took `bMs` (0: ended in the ms it left in). */
function twoSent(bMs: number): { intake: FakeIntake; reconciler: KeyReconciler; a: SentRequest; b: SentRequest } {
  const intake = new FakeIntake();
  const { reconciler } = setup(intake);
  const a = sentAgo(40);
  const b = { start: a.end + 1, end: a.end + 1 + bMs };
  reconciler.noteAccepted(batch(1, 1, 2), a);
  reconciler.noteAccepted(batch(2, 3, 2), b);
  return { intake, reconciler, a, b };
}

describe('KeyReconciler.rowsVisible (the end of a run)', () => {
  it("waits until the rows of the run's last requests show, even while other traffic holds the intake open past the quiet period", async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const a = sentAgo(40);
    const b = { start: a.end + 1, end: a.end + 20 }; // left after a ended: its rows showing shows a's
    const c = { start: a.end + 5, end: a.end + 30 }; // in flight with b
    reconciler.noteAccepted(batch(1, 1, 2), a);
    reconciler.noteAccepted(batch(2, 3, 2), b);
    reconciler.noteAccepted(batch(3, 5, 2), c);
    const flush = c.end + WINDOW / 2;
    intake.stored(['k1', 'k2', 'k3', 'k4', 'k5', 'k6'], a.end, flush);
    await reconciler.rowsVisible(c.end);
    // the first batch (never checked yet), and of the rest only the last requests (b and c, in flight together), by one key each
    expect(intake.lookups.map((lookup) => lookup.keys).at(-1)).toEqual(['k1', 'k2', 'k3', 'k5']);
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(flush);
  });

  it('waits for the last request when it ended in the millisecond it left in (a near network)', async () => {
    const { intake, reconciler, a, b } = twoSent(0);
    const flush = b.end + WINDOW / 2;
    intake.stored(['k1', 'k2', 'k3', 'k4'], a.end, flush);
    await reconciler.rowsVisible(b.end);
    // b's rows were waited for (before, none was: the run named them dropped, push-key.test.ts's flaky "killed, then run again")
    expect(intake.lookups.at(-1)!.keys).toContain('k3');
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(flush);
  });

  it('fails (PUSH_INCOMPLETE) when the keys of the last requests never show', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const sent = sentAgo();
    reconciler.noteAccepted(batch(7, 31, 5), sent);
    const error = await reconciler.rowsVisible(sent.end).catch((e: unknown) => e);
    expect((error as TdsError).message).toContain('does not show the keys of records 31–35');
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(sent.end + WINDOW);
  });

  it('(issue 45) keys of the last requests that never show, once an earlier batch of the run showed, were dropped: no failure', async () => {
    const { intake, reconciler, a, b } = twoSent(19);
    intake.stored(['k1', 'k2'], a.end, a.end);
    await reconciler.rowsVisible(b.end);
    // decided once b's window had passed: the run names records 3–4 dropped after (dropped-rows.ts)
    expect(intake.lookups.at(-1)!.at).toBeGreaterThanOrEqual(b.end + WINDOW);
    expect(reconciler.checkDue).toBe(false);
  });

  it('with nothing taken in by this run, waits out the window of the last request an earlier run had taken in', async () => {
    const intake = new FakeIntake();
    const { reconciler } = setup(intake);
    const end = Date.now();
    reconciler.noteAccepted(batch(1, 1, 2), { start: -Infinity, end }, false);
    intake.stored(['k1', 'k2'], end, end);
    await reconciler.rowsVisible(0);
    expect(Date.now()).toBeGreaterThanOrEqual(end + WINDOW);
    expect(intake.lookups.map((lookup) => lookup.keys)).toEqual([['k1', 'k2']]);
  });
});

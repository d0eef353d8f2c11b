import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TdsError } from '../../../src/core/errors.js';
import { keyColumn } from '../../../src/push/key/key-column.js';
import type { KeyLookups } from '../../../src/push/key/key-lookups.js';
import { KeyReconciler, type ReconcileOptions } from '../../../src/push/key/reconcile.js';
import { makeBatch, type Batch } from '../../../src/push/plan/batch.js';
import { INTAKE_MAX_MS, INTAKE_QUIET_MS } from '../../../src/service/index.js';

// TDS_RATE_SCALE 100: the intake window is 50 ms quiet, 300 ms at most, rowCount polled every 10 ms.
const SCALE = 100;
const QUIET = INTAKE_QUIET_MS / SCALE;
const MAX = INTAKE_MAX_MS / SCALE;

/** Batch `number` holding records first…first+count-1, keyed `k<record>` (a record in `keyless` has no key). */
function batch(number: number, first: number, count: number, keyless: number[] = []): Batch {
  const items = Array.from({ length: count }, (_, i) => {
    const record = first + i;
    const json = JSON.stringify({ r: record });
    return { record, json, bytes: json.length, ...(keyless.includes(record) ? {} : { key: `k${record}` }) };
  });
  return makeBatch(number, '', items);
}

interface FakeOptions {
  /** keys the table shows */
  table?: Iterable<string>;
  /** the table's rowCount at each call (the last one repeats) */
  rowCounts?: number[];
  /** from this many ms after setup on, the table shows its keys, and rowCount is rowCounts' last */
  visibleAfterMs?: number;
}

function setup(fake: FakeOptions = {}, options: Partial<ReconcileOptions> = {}) {
  const table = new Set(fake.table ?? []);
  const rowCounts = fake.rowCounts ?? [0];
  const calls = { rowCount: [] as number[], reconcile: [] as string[][], present: [] as string[][] };
  const started = Date.now();
  const visible = (): boolean => Date.now() - started >= (fake.visibleAfterMs ?? 0);
  const lookups = {
    column: keyColumn([{ id: 'f1', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false }], 'f1'),
    rowCount: async () => {
      calls.rowCount.push(Date.now() - started);
      if (!visible()) return rowCounts[0]!;
      return rowCounts[Math.min(calls.rowCount.length - 1, rowCounts.length - 1)]!;
    },
    reconcile: async (keys: readonly string[]) => {
      calls.reconcile.push([...keys]);
      const lookup = {
        requests: 1,
        present: async (asked: readonly string[]) => {
          calls.present.push([...asked]);
          return new Set(asked.filter((key) => visible() && table.has(key)));
        },
      };
      return { plan: { kind: 'queries' as const, requests: 1, text: 'one query' }, lookup };
    },
  };
  const lines: string[] = [];
  const reconciler = new KeyReconciler({
    lookups: lookups as unknown as KeyLookups,
    field: 'email',
    rateScale: SCALE,
    signal: new AbortController().signal,
    log: (line) => lines.push(line),
    ...options,
  });
  return { reconciler, calls, lines };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

const records = (sets: Array<ReadonlySet<number>>): number[][] => sets.map((set) => [...set].sort((a, b) => a - b));

describe('KeyReconciler.found', () => {
  it('waits out the quiet period after the last request, then for rowCount to hold still', async () => {
    const { reconciler, calls } = setup({ table: ['k1'], rowCounts: [5] });
    const { value, ms } = await timed(() => reconciler.found([batch(1, 1, 3)], Date.now()));
    expect(records(value)).toEqual([[1]]);
    expect(ms).toBeGreaterThanOrEqual(QUIET - 2);
    expect(ms).toBeLessThan(MAX);
    // one count after the quiet period, one a poll later that agrees
    expect(calls.rowCount).toHaveLength(2);
    expect(calls.rowCount[0]!).toBeGreaterThanOrEqual(QUIET - 2);
  });

  it('does not wait for a quiet period that has passed', async () => {
    // unscaled: a wait would take 5 s
    const { reconciler, calls } = setup({ rowCounts: [5] }, { rateScale: 1 });
    const { ms } = await timed(() => reconciler.found([batch(1, 1, 3)], Date.now() - 60_000));
    expect(ms).toBeLessThan(INTAKE_QUIET_MS / 5);
    // the window is over: rowCount is read once, not polled
    expect(calls.rowCount).toHaveLength(1);
  });

  it('polls while rowCount still grows', async () => {
    const { reconciler, calls } = setup({ rowCounts: [1, 2, 3, 4, 4] });
    const { ms } = await timed(() => reconciler.found([batch(1, 1, 3)], Date.now()));
    expect(calls.rowCount).toHaveLength(5);
    expect(ms).toBeGreaterThanOrEqual(QUIET + 4 * (1000 / SCALE) - 4);
  });

  it('stops waiting at the end of the intake window even when rowCount never holds still', async () => {
    const counts = Array.from({ length: 1000 }, (_, i) => i);
    const { reconciler, calls } = setup({ rowCounts: counts });
    const at = Date.now();
    const { ms } = await timed(() => reconciler.found([batch(1, 1, 3)], at));
    expect(ms).toBeGreaterThanOrEqual(MAX - 5);
    expect(ms).toBeLessThan(MAX + 150);
    expect(calls.rowCount.length).toBeGreaterThan(3);
  });

  it('returns, per batch, the records whose keys the table holds', async () => {
    const { reconciler, calls, lines } = setup({ table: ['k2', 'k3', 'k7', 'other'] });
    const batches = [batch(1, 1, 3), batch(2, 4, 3), batch(3, 7, 3, [8])];
    const found = await reconciler.found(batches, 0);
    expect(records(found)).toEqual([[2, 3], [], [7]]);
    expect(calls.reconcile).toEqual([['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k9']]);
    expect(lines).toEqual(['settling 8 keys of uncertain records: one query', 'settled by key: 3 of 8 keys found in the table']);
  });

  it('also looks up the keys of a batch taken in, and goes on when they show', async () => {
    const { reconciler, calls } = setup({ table: ['k10'] });
    reconciler.noteAccepted(batch(4, 10, 5), true);
    const found = await reconciler.found([batch(5, 20, 2)], 0);
    expect(records(found)).toEqual([[]]);
    // the sample: the first three keys of the batch taken in
    expect(calls.present).toEqual([['k20', 'k21', 'k10', 'k11', 'k12']]);
  });

  it('fails (PUSH_INCOMPLETE) when the keys of a batch taken in do not show: the webhook does not fill the column', async () => {
    const { reconciler } = setup({ table: ['k20'] });
    reconciler.noteAccepted(batch(4, 10, 5), true);
    const error = await reconciler.found([batch(5, 20, 2)], 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TdsError);
    expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
    expect((error as TdsError).exitCode).toBe(7);
    expect((error as TdsError).message).toBe(
      'cannot settle uncertain records by key: the column "Email" does not show the keys of records 10–14, which the webhook took in',
    );
    expect((error as TdsError).hint).toContain('"email"');
    expect((error as TdsError).hint).toContain('the uncertain batches are left in the journal');
  });

  it('takes the first batch with keys as the sample, from this run or an earlier one', async () => {
    const { reconciler, calls } = setup({ table: ['k1', 'k2', 'k3'] });
    reconciler.noteAccepted(batch(1, 1, 2, [1, 2]), true); // no keys: no sample
    reconciler.noteAccepted(batch(2, 3, 3), false);
    reconciler.noteAccepted(batch(3, 6, 3), true);
    await reconciler.found([batch(4, 9, 1)], 0).catch(() => undefined);
    expect(calls.present[0]).toEqual(['k9', 'k3', 'k4', 'k5']);
  });

  describe('with no batch known to be taken in', () => {
    it('fails when the table grew by every record sent, yet shows none of the uncertain keys', async () => {
      const { reconciler } = setup({ rowCounts: [103] });
      reconciler.begin(100);
      const error = await reconciler.found([batch(1, 1, 3)], 0).catch((e: unknown) => e);
      expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
      expect((error as TdsError).message).toContain('the keys of the uncertain records 1–3');
    });

    it('counts the keyless records taken in this run in what the table must grow by', async () => {
      const grewBy = async (rowCount: number): Promise<unknown> => {
        const { reconciler } = setup({ rowCounts: [rowCount] });
        reconciler.begin(100);
        reconciler.noteAccepted(batch(1, 1, 2, [1, 2]), true);
        return reconciler.found([batch(2, 3, 3), batch(3, 6, 2)], 0).then(records, (e: unknown) => e);
      };
      // 2 taken in + 5 uncertain: 7 new rows and no key found → the keys cannot be found
      expect(await grewBy(107)).toBeInstanceOf(TdsError);
      // 6 new rows: some uncertain records were not taken in; they are sent again
      expect(await grewBy(106)).toEqual([[], []]);
    });

    it('sends the records again when the table did not grow by them', async () => {
      const { reconciler } = setup({ rowCounts: [100] });
      reconciler.begin(100);
      expect(records(await reconciler.found([batch(1, 1, 3)], 0))).toEqual([[]]);
    });

    it('does not judge by rowCount without the count from before the run', async () => {
      const { reconciler } = setup({ rowCounts: [10 ** 6] });
      expect(records(await reconciler.found([batch(1, 1, 3)], 0))).toEqual([[]]);
    });

    it('goes on when some uncertain key shows', async () => {
      const { reconciler } = setup({ table: ['k2'], rowCounts: [103] });
      reconciler.begin(100);
      expect(records(await reconciler.found([batch(1, 1, 3)], 0))).toEqual([[2]]);
    });
  });

  it('stops waiting when the run is interrupted', async () => {
    const controller = new AbortController();
    // unscaled: the quiet period alone would take 5 s
    const { reconciler, calls } = setup({}, { signal: controller.signal, rateScale: 1 });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    const { value, ms } = await timed(() => reconciler.found([batch(1, 1, 1)], Date.now()).catch((e: unknown) => e));
    expect(value).toEqual(new Error('stop'));
    expect(ms).toBeLessThan(INTAKE_QUIET_MS / 5);
    expect(calls.reconcile).toEqual([]);
  });
});

describe('KeyReconciler.checkDue and checkKeysShow', () => {
  it('is due once the intake window of the first batch taken in has surely passed, until checked', async () => {
    const { reconciler, calls } = setup({ table: ['k1'] });
    expect(reconciler.checkDue).toBe(false);
    reconciler.noteAccepted(batch(1, 1, 3), true);
    expect(reconciler.checkDue).toBe(false);
    await sleep(MAX + 5);
    expect(reconciler.checkDue).toBe(true);
    await reconciler.checkKeysShow();
    expect(calls.present).toEqual([['k1', 'k2', 'k3']]);
    expect(reconciler.checkDue).toBe(false);
    // checked once: no more lookups
    await reconciler.checkKeysShow(Date.now());
    expect(calls.present).toHaveLength(1);
  });

  it('is due at once for a batch an earlier run had taken in', () => {
    const { reconciler } = setup();
    reconciler.noteAccepted(batch(1, 1, 3), false);
    expect(reconciler.checkDue).toBe(true);
  });

  it('does nothing without a batch taken in', async () => {
    const { reconciler, calls } = setup();
    await reconciler.checkKeysShow(Date.now());
    expect(calls.reconcile).toEqual([]);
    expect(calls.rowCount).toEqual([]);
  });

  it('at the end of a run, waits out the intake window before looking', async () => {
    const { reconciler, calls } = setup({ table: ['k1'], rowCounts: [3] });
    reconciler.noteAccepted(batch(1, 1, 3), true);
    const { ms } = await timed(() => reconciler.checkKeysShow(Date.now()));
    expect(ms).toBeGreaterThanOrEqual(QUIET - 2);
    expect(calls.rowCount.length).toBeGreaterThanOrEqual(1);
    expect(calls.present).toHaveLength(1);
  });

  it('fails (PUSH_INCOMPLETE) when none of the keys of the batch taken in show', async () => {
    const { reconciler } = setup({ table: [] });
    reconciler.noteAccepted(batch(1, 4, 3), false);
    const error = await reconciler.checkKeysShow().catch((e: unknown) => e);
    expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
    expect((error as TdsError).message).toBe(
      'the keys cannot be found in the table: the column "Email" does not show the keys of records 4–6, which the webhook took in',
    );
    expect((error as TdsError).hint).not.toContain('journal');
    // still not confirmed: due again
    expect(reconciler.checkDue).toBe(true);
  });

  it('keys that do not show while the rows taken in are not all visible yet (rowCount) are looked for again once they are', async () => {
    // TDS_RATE_SCALE shortened the window to 300 ms, but the rows show only after 600 ms (an emulator
    // with its own intake delay): no false "the webhook does not fill the column"
    const { reconciler, calls } = setup({ table: ['k1'], rowCounts: [10, 13], visibleAfterMs: 600 });
    reconciler.begin(10);
    reconciler.noteAccepted(batch(1, 1, 3), true);
    const { ms } = await timed(() => reconciler.checkKeysShow(Date.now()));
    expect(ms).toBeGreaterThanOrEqual(590);
    expect(calls.present).toHaveLength(2);
    expect(reconciler.checkDue).toBe(false);
  });

  it('keys that do not show once the rows taken in are visible fail at once, without waiting for them', async () => {
    const { reconciler, calls } = setup({ table: [], rowCounts: [13] });
    reconciler.begin(10);
    reconciler.noteAccepted(batch(1, 1, 3), true);
    const { value: error, ms } = await timed(() => reconciler.checkKeysShow(Date.now()).catch((e: unknown) => e));
    expect((error as TdsError).code).toBe('PUSH_INCOMPLETE');
    expect(ms).toBeLessThan(MAX + 500);
    expect(calls.present).toHaveLength(2);
  });

  it('settling: a sample that does not show while rows are still coming in is looked for again once they show', async () => {
    const { reconciler, calls } = setup({ table: ['k10', 'k20'], rowCounts: [10, 15], visibleAfterMs: 600 });
    reconciler.begin(10);
    reconciler.noteAccepted(batch(4, 10, 5), true);
    const found = await reconciler.found([batch(5, 20, 2)], Date.now());
    expect(records(found)).toEqual([[20]]);
    expect(calls.present).toHaveLength(2);
  });

  it('after keys were confirmed by settling, is no longer due', async () => {
    const { reconciler } = setup({ table: ['k1'] });
    reconciler.noteAccepted(batch(1, 1, 3), false);
    await reconciler.found([batch(2, 4, 1)], 0);
    expect(reconciler.checkDue).toBe(false);
  });
});

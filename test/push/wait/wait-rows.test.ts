import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceTimings } from '../../../src/http/rate-limiter.js';
import type { KeyLookups } from '../../../src/push/key/key-lookups.js';
import { KeyedRowsFile } from '../../../src/push/wait/write-rows.js';
import { waitUntilSettled, type SettledState, type SettledWaitOptions } from '../../../src/push/wait/wait-rows.js';
import type { CellStatus, Field, Row } from '../../../src/service/index.js';

const FIELDS: Field[] = [
  { id: 'f_email', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false },
  { id: 'f_enrich', name: 'enrich', label: 'Enrich', type: 'action', options: null, isSystem: false },
  { id: 'f_score', name: 'score', label: 'Score', type: 'action', options: null, isSystem: false },
];

/** A row of `key` whose action cells have these statuses (column ID → status). */
function row(key: string, statuses: Record<string, CellStatus | null> = {}, version = 0): Row {
  const cells: Row['cells'] = { f_email: { value: key } };
  for (const [id, status] of Object.entries(statuses)) cells[id] = { value: `v${version}`, status };
  return {
    id: `row-${key}`,
    tableId: 't',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: `2026-01-01T00:00:0${version}.000Z`,
    createdByUserId: null,
    cells,
  };
}

/**
 * KeyLookups whose table shows, at poll i (0-based), `polls[i]` (the last one repeats): key → row.
 * Each poll counts 2 row requests.
 */
function fakeLookups(polls: Array<Record<string, Row>>) {
  const asked: Array<{ keys: string[]; recent?: { since: number; rowsBefore: number } }> = [];
  let requests = 0;
  const lookups = {
    client: { timings: serviceTimings() },
    get requests() {
      return { existing: 0, check: 0, reconcile: 0, wait: requests };
    },
    rows: async (keys: readonly string[], recent?: { since: number; rowsBefore: number }) => {
      asked.push({ keys: [...keys], ...(recent ? { recent } : {}) });
      const table = polls[Math.min(asked.length - 1, polls.length - 1)]!;
      return {
        plan: { kind: 'queries' as const, requests: 2, text: asked.length < 3 ? 'plan A' : 'plan B' },
        lookup: {
          requests: 0,
          find: async (wanted: readonly string[]) => {
            requests += 2;
            return new Map(wanted.filter((key) => table[key]).map((key) => [key, table[key]!]));
          },
        },
      };
    },
  };
  return { lookups: lookups as unknown as KeyLookups, asked };
}

let store: KeyedRowsFile;
beforeEach(async () => {
  store = await KeyedRowsFile.create();
});
afterEach(async () => {
  await store.close();
});

function wait(lookups: KeyLookups, keys: string[], extra: Partial<SettledWaitOptions> = {}) {
  const states: SettledState[] = [];
  const lines: string[] = [];
  const result = waitUntilSettled({
    lookups,
    keys,
    fields: FIELDS,
    store,
    timeoutMs: 2000,
    intervalMs: 5,
    signal: new AbortController().signal,
    onPoll: (state) => states.push(state),
    log: (line) => lines.push(line),
    ...extra,
  });
  return { result, states, lines };
}

describe('waitUntilSettled', () => {
  it('polls until every row shows and none of its cells is queued, waiting or running', async () => {
    const { lookups, asked } = fakeLookups([
      { a: row('a', { f_enrich: 'queued' }, 1) },
      { a: row('a', { f_enrich: 'running', f_score: 'waiting' }, 2), b: row('b', { f_enrich: 'running' }, 2) },
      { a: row('a', { f_enrich: 'success', f_score: 'failed' }, 3), b: row('b', { f_enrich: 'running' }, 3) },
      { a: row('a', { f_enrich: 'success', f_score: 'failed' }, 4), b: row('b', { f_enrich: 'skipped', f_score: null }, 4) },
    ]);
    const { result, states, lines } = wait(lookups, ['a', 'b']);
    const done = await result;
    expect(done).toMatchObject({ expected: 2, visible: 2, settled: 2, running: {}, complete: true, requests: 8 });
    expect(states).toEqual([
      { expected: 2, visible: 1, settled: 0, running: { Enrich: 1 } },
      { expected: 2, visible: 2, settled: 0, running: { Enrich: 2, Score: 1 } },
      { expected: 2, visible: 2, settled: 1, running: { Enrich: 1 } },
      { expected: 2, visible: 2, settled: 2, running: {} },
    ]);
    // only the keys not settled yet are looked up again
    expect(asked.map((call) => call.keys)).toEqual([['a', 'b'], ['a', 'b'], ['a', 'b'], ['b']]);
    // the store holds the last version seen of each row
    expect((await store.get('a'))!.cells.f_enrich).toEqual({ value: 'v3', status: 'success' });
    expect((await store.get('b'))!.cells.f_enrich).toEqual({ value: 'v4', status: 'skipped' });
    // the plan is logged when it changes
    expect(lines).toEqual(['waiting for the rows to settle: plan A', 'waiting for the rows to settle: plan B']);
  });

  it('settles at once rows whose cells carry no unfinished status', async () => {
    const { lookups, asked } = fakeLookups([{ a: row('a'), b: row('b', { f_enrich: 'manual', f_score: 'stopped' }) }]);
    const { result } = wait(lookups, ['a', 'b']);
    expect(await result).toMatchObject({ settled: 2, complete: true, requests: 2 });
    expect(asked).toHaveLength(1);
  });

  it('names a column missing from the fields by its ID', async () => {
    const { lookups } = fakeLookups([{ a: row('a', { f_other: 'running' }) }, { a: row('a') }]);
    const { result, states } = wait(lookups, ['a']);
    await result;
    expect(states[0]!.running).toEqual({ f_other: 1 });
  });

  it('gives up when time runs out, saying how far it got', async () => {
    const { lookups } = fakeLookups([{ a: row('a', { f_enrich: 'running' }), b: row('b') }]);
    const started = performance.now();
    const { result, states } = wait(lookups, ['a', 'b', 'c'], { timeoutMs: 60, intervalMs: 10 });
    const done = await result;
    const ms = performance.now() - started;
    expect(done).toMatchObject({ expected: 3, visible: 2, settled: 1, running: { Enrich: 1 }, complete: false });
    expect(ms).toBeGreaterThanOrEqual(55);
    expect(done.seconds).toBeGreaterThanOrEqual(0.05);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(done.requests).toBe(states.length * 2);
    // the unsettled row is kept too
    expect(await store.get('a')).toBeDefined();
    expect(await store.get('c')).toBeUndefined();
  });

  it('reads them all once more when the time ran out during a poll that stopped early', async () => {
    // a poll stops at the first part holding a running row; this one outlasts the timeout
    const parts = ['a', 'b', 'c'].map((key) => new Map([[key, row(key, { f_enrich: 'running' })]]));
    let polls = 0;
    const lookups = {
      client: { timings: serviceTimings() },
      requests: { existing: 0, check: 0, reconcile: 0, wait: 0 },
      rows: async () => ({
        plan: { kind: 'pages' as const, requests: 3, text: 'the newest rows' },
        lookup: {
          requests: 3,
          find: async (_wanted: readonly string[], stopAt?: (part: Map<string, Row>) => boolean) => {
            polls += 1;
            await new Promise((done) => setTimeout(done, 40));
            const seen = new Map<string, Row>();
            for (const part of parts) {
              for (const [key, value] of part) seen.set(key, value);
              if (stopAt?.(part)) break;
            }
            return seen;
          },
        },
      }),
    } as unknown as KeyLookups;
    const done = await wait(lookups, ['a', 'b', 'c'], { timeoutMs: 30, intervalMs: 5 }).result;
    expect(polls).toBe(2);
    expect(done).toMatchObject({ expected: 3, visible: 3, settled: 0, running: { Enrich: 3 }, complete: false });
  });

  it('passes the push start on, so the newest rows can be read', async () => {
    const recent = { since: 1_700_000_000_000, rowsBefore: 42 };
    const { lookups, asked } = fakeLookups([{ a: row('a') }]);
    await wait(lookups, ['a'], { recent }).result;
    expect(asked[0]!.recent).toEqual(recent);
  });

  it('is complete at once with no keys to wait for', async () => {
    const { lookups } = fakeLookups([{}]);
    expect(await wait(lookups, []).result).toMatchObject({ expected: 0, settled: 0, complete: true });
  });

  it('stops when the run is interrupted', async () => {
    const controller = new AbortController();
    const { lookups } = fakeLookups([{ a: row('a', { f_enrich: 'running' }) }]);
    setTimeout(() => controller.abort(new Error('interrupted')), 20);
    const { result } = wait(lookups, ['a'], { signal: controller.signal, intervalMs: 1000, timeoutMs: 10_000 });
    await expect(result).rejects.toThrow('interrupted');
  });
});

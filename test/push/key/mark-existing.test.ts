import { describe, expect, it } from 'vitest';
import { keyColumn } from '../../../src/push/key/record-key.js';
import type { KeyLookups, LookupPlan } from '../../../src/push/key/key-lookups.js';
import { markExisting } from '../../../src/push/key/mark-existing.js';
import { makeBatch, type Batch } from '../../../src/push/plan/batch.js';
import type { ColumnType } from '../../../src/service/index.js';

/** Batch `number` of `size` records, keyed `k<record>`. */
function batch(number: number, size: number, extra: Partial<Batch> = {}): Batch {
  const items = Array.from({ length: size }, (_, i) => {
    const record = (number - 1) * size + i + 1;
    const json = JSON.stringify({ id: `k${record}` });
    return { record, json, bytes: json.length, key: `k${record}` };
  });
  return { ...makeBatch(number, '', items), ...extra };
}

interface Fake {
  lookups: KeyLookups;
  log: string[];
  existingCalls: Array<{ sample: readonly string[]; keyCount: number; found?: number }>;
}

/** KeyLookups whose table holds `inTable`; everything it is asked goes to `log`. `kind`: the plan, or the plan for a share found (undefined: every key). */
function fakeLookups(
  type: ColumnType,
  inTable: Iterable<string>,
  kind: LookupPlan['kind'] | ((found: number | undefined) => LookupPlan['kind']) = 'queries',
): Fake {
  const table = new Set(inTable);
  const log: string[] = [];
  const existingCalls: Fake['existingCalls'] = [];
  const column = keyColumn([{ id: 'k', name: 'id', label: 'ID', type, options: null, isSystem: false }], 'k');
  const lookup = {
    requests: 0,
    present: async (keys: readonly string[]) => {
      log.push(`lookup ${keys.length}`);
      return new Set(keys.filter((key) => table.has(key)));
    },
  };
  const fake = {
    column,
    existing: async (sample: readonly string[], keyCount: number, found?: number) => {
      existingCalls.push({ sample, keyCount, ...(found !== undefined ? { found } : {}) });
      const planned = typeof kind === 'function' ? kind(found) : kind;
      return { plan: { kind: planned, requests: 1, text: `plan ${planned}` }, lookup };
    },
  };
  return { lookups: fake as unknown as KeyLookups, log, existingCalls };
}

async function run(batches: Batch[], fake: Fake, keyCount?: number) {
  const plans: LookupPlan[] = [];
  const source = (async function* () {
    for (const b of batches) {
      fake.log.push(`read ${b.number}`);
      yield b;
    }
  })();
  const out: Batch[] = [];
  for await (const b of markExisting(source, { lookups: fake.lookups, keyCount, onPlan: (plan) => plans.push(plan) })) {
    fake.log.push(`out ${b.number}`);
    out.push(b);
  }
  return { out, plans };
}

describe('markExisting', () => {
  it('holds batches until their keys fill whole filter queries, then looks them up together', async () => {
    // email keys: one `=` rule each, 97 (RULES_PER_QUERY) to a query: a window of 103 queries (9,991 keys) closes at the 20th batch of 500
    const fake = fakeLookups('email', []);
    const { out } = await run(
      Array.from({ length: 25 }, (_, i) => batch(i + 1, 500)),
      fake,
    );
    expect(out.map((b) => b.number)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const firstOut = fake.log.indexOf('out 1');
    expect(fake.log.slice(0, firstOut)).toEqual([...Array.from({ length: 20 }, (_, i) => `read ${i + 1}`), 'lookup 10000']);
    expect(fake.log.filter((line) => line.startsWith('lookup'))).toEqual(['lookup 10000', 'lookup 2500']);
    expect(fake.log.indexOf('read 21')).toBeGreaterThan(fake.log.indexOf('out 20'));
  });

  it('with the plan on queries, looks the next windows up while earlier ones are (as many as lookups in flight), in input order', async () => {
    const fake = fakeLookups('email', ['k1', 'k10001', 'k20001', 'k30001']);
    Object.assign(fake.lookups, { inFlight: 2 });
    const { out } = await run(
      Array.from({ length: 70 }, (_, i) => batch(i + 1, 500)),
      fake,
    );
    expect(out.map((b) => b.number)).toEqual(Array.from({ length: 70 }, (_, i) => i + 1));
    expect(out.filter((b) => b.existing).map((b) => [b.number, [...b.existing!]])).toEqual([
      [1, [1]],
      [21, [10001]],
      [41, [20001]],
      [61, [30001]],
    ]);
    // two windows under way before the first goes on; never a third
    const lookups = fake.log.filter((line) => line.startsWith('lookup')).length;
    expect(lookups).toBe(4);
    expect(fake.log.indexOf('read 40')).toBeLessThan(fake.log.indexOf('out 1'));
    expect(fake.log.indexOf('read 60')).toBeGreaterThan(fake.log.indexOf('out 1'));
  });

  it('marks the records whose keys the table holds, and leaves other batches as they were', async () => {
    const fake = fakeLookups('text', ['k2', 'k3', 'k7']);
    const batches = [batch(1, 3), batch(2, 3), batch(3, 3)];
    const { out } = await run(batches, fake);
    expect(out[0]!.existing).toEqual(new Set([2, 3]));
    expect(out[1]!.existing).toBeUndefined();
    expect(out[1]).toBe(batches[1]);
    expect(out[2]!.existing).toEqual(new Set([7]));
    // the batch itself is unchanged: its body still holds every record
    expect(out[0]!.items).toHaveLength(3);
    expect(out[0]!.sha256).toBe(batches[0]!.sha256);
    expect(batches[0]!.existing).toBeUndefined();
  });

  it('probes with queries at the first window when they are cheapest only if few keys are found; the share found there plans the rest', async () => {
    const fake = fakeLookups('email', ['k1', 'k2'], (found) => (found === undefined ? 'full-read' : 'queries'));
    const { plans } = await run(
      Array.from({ length: 60 }, (_, i) => batch(i + 1, 500)),
      fake,
      30_000,
    );
    // first: the plan if every key is found, and if few are; then, after 10,000 keys of which 2 were found, the plan for the 20,000 left
    expect(fake.existingCalls.map(({ keyCount, found }) => ({ keyCount, found }))).toEqual([
      { keyCount: 30_000, found: undefined },
      { keyCount: 30_000, found: 0 },
      { keyCount: 20_000, found: 2 / 10_000 },
    ]);
    expect(fake.existingCalls[0]!.sample).toHaveLength(10_000);
    // the second window waited for the first one's share
    expect(fake.log.indexOf('read 21')).toBeGreaterThan(fake.log.indexOf('out 20'));
    // only the plan that stays is reported
    expect(plans).toEqual([{ kind: 'queries', requests: 1, text: 'plan queries' }]);
    expect(fake.log.filter((line) => line.startsWith('lookup'))).toHaveLength(3);
  });

  it('with no key count, plans once for the keys of the first window', async () => {
    const fake = fakeLookups('email', []);
    await run([batch(1, 4)], fake);
    expect(fake.existingCalls).toEqual([{ sample: ['k1', 'k2', 'k3', 'k4'], keyCount: 4 }]);
  });

  it('after a plan that is not queries, releases each batch at once', async () => {
    const fake = fakeLookups('email', ['k10105'], 'full-read');
    const { out } = await run(
      Array.from({ length: 24 }, (_, i) => batch(i + 1, 500)),
      fake,
      12_000,
    );
    // the first window still waits for its queries' worth of keys; then every batch is looked up as it comes
    expect(fake.log.filter((line) => line.startsWith('lookup'))).toEqual([
      'lookup 10000',
      'lookup 500',
      'lookup 500',
      'lookup 500',
      'lookup 500',
    ]);
    expect(fake.log.indexOf('out 21')).toBeLessThan(fake.log.indexOf('read 22'));
    expect(out[20]!.existing).toEqual(new Set([10105]));
    // the hopeful plan was not queries either: no probe, the plan for every key
    expect(fake.existingCalls.map(({ found }) => found)).toEqual([undefined, 0]);
  });

  it('does not probe when queries win even with every key found: the next windows are looked up while the first is', async () => {
    const fake = fakeLookups('email', ['k1', 'k10001']);
    Object.assign(fake.lookups, { inFlight: 2 });
    const { out, plans } = await run(
      Array.from({ length: 60 }, (_, i) => batch(i + 1, 500)),
      fake,
      30_000,
    );
    expect(fake.existingCalls.map(({ keyCount, found }) => ({ keyCount, found }))).toEqual([{ keyCount: 30_000, found: undefined }]);
    expect(plans).toEqual([{ kind: 'queries', requests: 1, text: 'plan queries' }]);
    // the second window's lookup began before the first window went on (a probe waited for it)
    expect(fake.log.indexOf('read 40')).toBeLessThan(fake.log.indexOf('out 1'));
    expect(out.map((b) => b.number)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(out.filter((b) => b.existing).map((b) => [b.number, [...b.existing!]])).toEqual([
      [1, [1]],
      [21, [10001]],
    ]);
  });

  it('passes an unreconciled batch of an earlier run through at once, untouched and not looked up', async () => {
    const fake = fakeLookups('text', ['k4', 'k1']);
    const unreconciled = batch(2, 3, { unreconciled: { at: 1000, cutOff: false } });
    const { out } = await run([batch(1, 3), unreconciled, batch(3, 3)], fake);
    expect(out.map((b) => b.number)).toEqual([2, 1, 3]);
    expect(out[0]).toBe(unreconciled);
    expect(out[0]!.existing).toBeUndefined();
    expect(fake.log.indexOf('out 2')).toBeLessThan(fake.log.indexOf('read 3'));
    expect(fake.existingCalls[0]!.sample).not.toContain('k4');
    expect(out[1]!.existing).toEqual(new Set([1]));
  });

  it('makes no lookup for batches without keys, and none for no batches', async () => {
    const fake = fakeLookups('text', []);
    const keyless = makeBatch(1, '', [{ record: 1, json: '{}', bytes: 2 }]);
    const { out } = await run([keyless], fake);
    expect(out).toEqual([keyless]);
    expect(fake.log.filter((line) => line.startsWith('lookup'))).toEqual([]);
    const none = fakeLookups('text', []);
    expect((await run([], none)).out).toEqual([]);
    expect(none.existingCalls).toEqual([]);
  });

  it('closes a window of long text keys sooner than one of short keys', async () => {
    const long = (number: number): Batch => {
      const items = Array.from({ length: 100 }, (_, i) => {
        const key = `${'x'.repeat(190)}${number}-${i}`;
        return { record: (number - 1) * 100 + i + 1, json: '{}', bytes: 2, key };
      });
      return makeBatch(number, '', items);
    };
    const fake = fakeLookups('text', []);
    await run(
      Array.from({ length: 120 }, (_, i) => long(i + 1)),
      fake,
    );
    // about 5 keys of ~200 characters fit in an `in` list: 97 lists hold about 480 keys, and a window whole queries of them
    const sizes = fake.log.filter((line) => line.startsWith('lookup')).map((line) => Number(line.split(' ')[1]));
    expect(sizes[0]).toBeGreaterThanOrEqual(9000);
    expect(sizes[0]).toBeLessThanOrEqual(10_000);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(12_000);
  });
});

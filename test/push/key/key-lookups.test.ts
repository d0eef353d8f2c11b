import { describe, expect, it } from 'vitest';
import { keyColumn } from '../../../src/push/key/record-key.js';
import {
  Flight,
  KeyLookups,
  lookupsInFlight,
  MirrorSnapshot,
  type MirrorSource,
  KeySnapshot,
  QueryLookup,
  TableRead,
} from '../../../src/push/key/key-lookups.js';
import type { ColumnType, Field, Row, Table } from '../../../src/service/index.js';
import { FakeTable, keyField as field, rowOf, TABLE_ID } from './fake-table.js';

/** Rows key0 … key(n-1), newest first, one minute apart from `start`. */
function manyRows(count: number, start: number): Row[] {
  return Array.from({ length: count }, (_, i) => rowOf(`r${i}`, { k: `Key${i}` }, new Date(start - i * 60_000).toISOString()));
}

class FakeMirror implements MirrorSource {
  requests = 0;
  readonly costAsked: number[] = [];
  loads = 0;

  constructor(
    private readonly cost: number | undefined,
    private readonly texts: string[],
  ) {}

  async syncCost(_table: Table, rowCount: number): Promise<number | undefined> {
    this.costAsked.push(rowCount);
    return this.cost;
  }

  async keyTexts(): Promise<Iterable<string>> {
    this.loads += 1;
    this.requests += this.cost ?? 0;
    return this.texts;
  }
}

function setup(type: ColumnType, rows: Row[], mirror?: MirrorSource, options: Field['options'] = null) {
  const fields = [field(type, options)];
  const table = new FakeTable(fields, rows);
  const column = keyColumn(fields, 'k');
  return { table, lookups: new KeyLookups(table.client, table.table, column, mirror) };
}

describe('KeyLookups', () => {
  const start = Date.parse('2026-01-01T12:00:00Z');

  it('reads the rowCount from the table list', async () => {
    const { table, lookups } = setup('text', manyRows(3, start));
    table.rowCount = 12_345;
    expect(await lookups.rowCount()).toBe(12_345);
  });

  it('--skip-existing: few keys in a big table are queried; a small table is read once', async () => {
    const big = setup('text', manyRows(300, start));
    big.table.rowCount = 10 ** 6;
    const few = await big.lookups.existing(['key1', 'key299', 'nope'], 3);
    expect(few.plan.kind).toBe('queries');
    expect(few.lookup).toBeInstanceOf(QueryLookup);
    expect(await few.lookup.present(['key1', 'key299', 'nope'])).toEqual(new Set(['key1', 'key299']));

    const small = setup('email', manyRows(150, start));
    const many = Array.from({ length: 500 }, (_, i) => `key${i}`);
    const read = await small.lookups.existing(many.slice(0, 100), 500);
    expect(read.plan).toMatchObject({ kind: 'full-read', requests: 2 });
    expect(read.lookup).toBeInstanceOf(KeySnapshot);
    expect((await read.lookup.present(many)).size).toBe(150);
    expect(small.lookups.requests).toEqual({ existing: 2, check: 0, reconcile: 0, wait: 0 });
  });

  it('--skip-existing: uses the mirror when its sync is cheapest, asking its cost for the table rowCount', async () => {
    const mirror = new FakeMirror(1, ['Key1', 'Gold']);
    const { table, lookups } = setup('select', manyRows(5, start), mirror, [{ label: 'Gold', value: 'opt_g' }]);
    table.rowCount = 50_000;
    const keys = Array.from({ length: 2000 }, (_, i) => `key${i}`);
    const planned = await lookups.existing(keys, keys.length);
    expect(mirror.costAsked).toEqual([50_000]);
    expect(planned.plan).toMatchObject({ kind: 'mirror', requests: 1 });
    expect(planned.lookup).toBeInstanceOf(MirrorSnapshot);
    expect(await planned.lookup.present(['key1', 'key2', 'gold', 'opt_g'])).toEqual(new Set(['key1', 'gold', 'opt_g']));
    expect(lookups.requests).toEqual({ existing: 1, check: 0, reconcile: 0, wait: 0 });
    expect(table.queries).toEqual([]);
    expect(table.reads).toEqual([]);
  });

  it('--skip-existing: does without a mirror that does not hold the table', async () => {
    const mirror = new FakeMirror(undefined, []);
    const { lookups } = setup('text', manyRows(5, start), mirror);
    expect((await lookups.existing(['key1'], 1)).plan.kind).not.toBe('mirror');
  });

  it('reconciling: never answers from the mirror (an earlier copy cannot show what just arrived)', async () => {
    const mirror = new FakeMirror(0, ['key1']);
    const { lookups } = setup('text', manyRows(5, start), mirror);
    const planned = await lookups.reconcile(['key1', 'key9']);
    expect(planned.plan.kind).not.toBe('mirror');
    expect(mirror.costAsked).toEqual([]);
    expect([...(await planned.lookup.find(['key1', 'key9'])).keys()]).toEqual(['key1']);
  });

  it('reconciling: a small table is read whole each time (rows, not a key snapshot kept from an earlier read)', async () => {
    const { table, lookups } = setup('email', manyRows(5, start));
    const keys = Array.from({ length: 200 }, (_, i) => `key${i}`);
    const planned = await lookups.reconcile(keys);
    expect(planned.plan.kind).toBe('full-read');
    expect(planned.lookup).toBeInstanceOf(TableRead);
    expect((await planned.lookup.find(keys)).get('key1')?.createdAt).toBe(new Date(start - 60_000).toISOString());
    await planned.lookup.find(keys);
    expect(table.reads).toHaveLength(2);
  });

  it("the newest row's createdAt: one row request, counted under its use", async () => {
    const { table, lookups } = setup('text', manyRows(5, start));
    expect(await lookups.newestCreatedAt()).toBe(start);
    expect(await lookups.newestCreatedAt('check')).toBe(start);
    expect(lookups.requests).toMatchObject({ reconcile: 1, check: 1 });
    expect(await setup('text', []).lookups.newestCreatedAt()).toBeUndefined();
    expect(table.reads).toEqual([undefined, undefined]);
  });

  it('--wait settled: reads the rows created since the push began, newest first, when that is cheapest', async () => {
    const rows = manyRows(350, start);
    const { table, lookups } = setup('email', rows);
    table.rowCount = 10 ** 6;
    // 300 `=` keys take 4 queries; the 300 rows created since the push began, 3 pages
    const keys = Array.from({ length: 300 }, (_, i) => `key${i}`);
    const since = start - 299 * 60_000;
    const planned = await lookups.rows(keys, { since, rowsBefore: 10 ** 6 - 300 });
    expect(planned.plan).toMatchObject({ kind: 'recent', requests: 3 });
    expect(planned.lookup).toBeInstanceOf(TableRead);
    const found = await planned.lookup.find(keys);
    expect(found.size).toBe(300);
    // the page holding row 300 goes below `since`: reading stops there
    expect(table.reads).toHaveLength(4);
    expect(planned.lookup.requests).toBe(4);
  });

  it('--wait settled: queries the keys when the run did not send them all', async () => {
    const { table, lookups } = setup('email', manyRows(350, start));
    table.rowCount = 10 ** 6;
    const planned = await lookups.rows(['key3', 'key4']);
    expect(planned.plan.kind).toBe('queries');
    expect(planned.lookup).toBeInstanceOf(QueryLookup);
    expect([...(await planned.lookup.find(['key3', 'key4'])).keys()].sort()).toEqual(['key3', 'key4']);
  });

  it('counts the row requests of every lookup, by what it was for', async () => {
    const { table, lookups } = setup('text', manyRows(250, start));
    table.rowCount = 10 ** 6;
    const a = await lookups.reconcile(['key1']);
    await a.lookup.find(['key1']);
    const b = await lookups.reconcile(['key2', 'key3']);
    await b.lookup.find(['key2', 'key3']);
    const c = await lookups.existing(['key4'], 1);
    await c.lookup.present(['key4']);
    const d = await lookups.rows(['key5']);
    await d.lookup.find(['key5']);
    const e = await lookups.reconcile(['key6'], 'check');
    await e.lookup.find(['key6']);
    expect(lookups.requests).toEqual({ existing: 1, check: 1, reconcile: 2, wait: 1 });
    expect(table.queries).toHaveLength(5);
  });
});

describe('MirrorSnapshot', () => {
  it('loads the keys once, folded as the column compares them', async () => {
    const mirror = new FakeMirror(3, ['1.50', '20', 'abc']);
    const fields = [field('number')];
    const table = new FakeTable(fields, []);
    const snapshot = new MirrorSnapshot(mirror, table.table, keyColumn(fields, 'k'));
    expect(await snapshot.present(['1.5', '20', '2'])).toEqual(new Set(['1.5', '20']));
    expect(await snapshot.present(['abc'])).toEqual(new Set(['abc']));
    expect(mirror.loads).toBe(1);
    expect(snapshot.requests).toBe(3);
  });
});

describe('lookups in flight', () => {
  it.each([
    // round trip (ms), limit per window → in flight
    { rttMs: undefined, window: { requests: 60, perMs: 60_000 }, expected: 2 },
    { rttMs: 200, window: { requests: 60, perMs: 60_000 }, expected: 2 },
    { rttMs: 1, window: { requests: 60, perMs: 60_000 }, expected: 2 },
    // the benchmark's 20× scale: 20 a second × 200 ms = 4, a quarter more, one more
    { rttMs: 200, window: { requests: 60, perMs: 3_000 }, expected: 6 },
    // never more than the client's 8 connections, nor than the limit
    { rttMs: 50, window: { requests: 60, perMs: 600 }, expected: 8 },
    { rttMs: 5_000, window: { requests: 60, perMs: 60_000 }, expected: 8 },
    { rttMs: 5_000, window: { requests: 1, perMs: 1_000 }, expected: 1 },
  ])('$rttMs ms at $window.requests per $window.perMs ms: $expected', ({ rttMs, window, expected }) => {
    expect(lookupsInFlight(rttMs, window)).toBe(expected);
  });

  /** The fake table's client, each query answered a timer turn later; the most queries it held at once. */
  function slowClient(table: FakeTable) {
    const client = table.client;
    let now = 0;
    const seen = { most: 0 };
    const queryPage = client.queryPage.bind(client);
    const slow = Object.assign(Object.create(client) as typeof client, {
      queryPage: async (...args: Parameters<typeof client.queryPage>) => {
        seen.most = Math.max(seen.most, (now += 1));
        await new Promise((resolve) => setTimeout(resolve, 1));
        now -= 1;
        return queryPage(...args);
      },
    });
    return { client: slow, seen };
  }

  it('overlaps the queries (as many as the flight allows), the rows taken in the queries’ order', async () => {
    const fields = [field('email')];
    const rows = manyRows(500, Date.parse('2026-01-01T12:00:00Z'));
    const table = new FakeTable(fields, rows);
    const { client, seen } = slowClient(table);
    const column = keyColumn(fields, 'k');
    const keys = Array.from({ length: 500 }, (_, i) => `key${i}`);
    const lookup = new QueryLookup({ client, tableId: TABLE_ID, column, flight: new Flight(() => 3) });
    const found = await lookup.find(keys);
    expect(seen.most).toBe(3);
    // 500 keys of one `=` rule each: 6 queries
    expect(lookup.requests).toBe(6);
    expect([...found.keys()]).toEqual(await new QueryLookupInOrder(table, column).keys(keys));
  });

  it('starts no query once `until` says enough; those in flight are still taken', async () => {
    const fields = [field('email')];
    const table = new FakeTable(fields, manyRows(500, Date.parse('2026-01-01T12:00:00Z')));
    const { client } = slowClient(table);
    const keys = Array.from({ length: 500 }, (_, i) => `key${i}`);
    const lookup = new QueryLookup({ client, tableId: TABLE_ID, column: keyColumn(fields, 'k'), flight: new Flight(() => 2) });
    const parts: number[] = [];
    const found = await lookup.find(keys, (part) => parts.push(part.size) >= 1);
    // the first query said enough while others were in flight (the one its answer made room for too):
    // none of the rest was sent, and the rows of all those sent are taken
    expect(lookup.requests).toBeLessThan(6);
    expect(parts).toEqual([97]);
    expect(found.size).toBe(lookup.requests * 97);
  });
});

/** The keys found by one query after another (the order before the queries overlapped). */
class QueryLookupInOrder {
  constructor(
    private readonly table: FakeTable,
    private readonly column: ReturnType<typeof keyColumn>,
  ) {}

  keys(keys: string[]): Promise<string[]> {
    return new QueryLookup({ client: this.table.client, tableId: TABLE_ID, column: this.column })
      .find(keys)
      .then((found) => [...found.keys()]);
  }
}

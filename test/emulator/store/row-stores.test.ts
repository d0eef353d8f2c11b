import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GeneratedOverlay, generatedTable } from '../../../src/emulator/store/generated-overlay.js';
import { compareCreated, compareIds, type RowStore, type StoredRow } from '../../../src/emulator/store/model.js';
import { RouteTable } from '../../../src/emulator/http/route-table.js';
import { RowList } from '../../../src/emulator/store/row-list.js';

// Row stores walk from a position and change under the walk; the computed table's overlay must read like
// a plain list of the same rows.

const key = (row: StoredRow) => `${row.createdAt}|${row.id}`;

/** What a store should hold: every row, sorted both ways, as plain rows. */
function reference(rows: readonly StoredRow[]) {
  const newest = [...rows].sort((a, b) => -compareCreated(a, b));
  const byId = [...rows].sort((a, b) => compareIds(a.id, b.id));
  return { newest, byId };
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), value: fc.integer() }),
  fc.record({
    kind: fc.constant('add' as const),
    // On the second of a computed row at times (a tie broken by id), and ids among the computed ones ("r--…").
    createdAt: fc.oneof(
      fc.integer({ min: -5_000, max: 250_000 }),
      fc.nat(199).map((i) => i * 1000),
    ),
    id: fc
      .tuple(fc.constantFrom('a', 'r', 'r-', 'r--', 'r--V', 'r--z', 'r-0', 'rz', 's'), fc.string({ maxLength: 6 }))
      .map(([prefix, rest]) => prefix + rest),
  }),
);

type Op = { kind: 'delete'; at: number } | { kind: 'edit'; at: number; value: number } | { kind: 'add'; createdAt: number; id: string };

/** Applies the same changes to the store and to a plain array; returns the array. */
function apply(store: RowStore, start: StoredRow[], ops: ReadonlyArray<Op>, fieldId: string): StoredRow[] {
  let rows = start;
  for (const change of ops) {
    const target = rows['at' in change ? change.at % Math.max(rows.length, 1) : 0];
    if (change.kind === 'delete' && target) {
      expect(store.remove(target.id)?.id).toBe(target.id);
      rows = rows.filter((row) => row.id !== target.id);
    } else if (change.kind === 'edit' && target) {
      const row = store.edit(target.id)!;
      row.cells[fieldId] = { value: change.value };
      rows = rows.map((candidate) =>
        candidate.id === target.id ? { ...candidate, cells: { ...candidate.cells, [fieldId]: { value: change.value } } } : candidate,
      );
    } else if (change.kind === 'add' && !rows.some((row) => row.id === change.id)) {
      const row = { id: change.id, createdAt: change.createdAt, updatedAt: change.createdAt, createdByUserId: null, cells: {} };
      store.add([row]);
      rows = [...rows, { ...row, cells: {} }];
    }
  }
  return rows;
}

const plain = (row: StoredRow, fieldId: string) => [row.id, row.createdAt, row.cells[fieldId]?.value];

describe('GeneratedOverlay', () => {
  const table = generatedTable({ count: 200, seed: 42, startMs: 0 }, 'org', 'wsp');
  const amount = table.fields.find((field) => field.name === 'amount')!.id;
  const base = (table.rows as GeneratedOverlay).base;
  const baseRows = (): StoredRow[] =>
    [...base.newest()].map((row) => ({
      id: row.id,
      createdAt: row.createdAt,
      updatedAt: 0,
      createdByUserId: null,
      cells: { [amount]: row.cells[amount]! },
    }));

  it('reads like a plain list of its rows after any deletes, edits and adds, from any position', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.nat(), (ops, from) => {
        const store = new GeneratedOverlay(base);
        const rows = apply(store, baseRows(), ops, amount);
        const want = reference(rows);
        expect(store.size).toBe(rows.length);
        expect([...store.newest()].map((row) => plain(row, amount))).toEqual(want.newest.map((row) => plain(row, amount)));
        expect([...store.byId()].map((row) => plain(row, amount))).toEqual(want.byId.map((row) => plain(row, amount)));
        const at = want.newest[from % Math.max(want.newest.length, 1)];
        if (at) {
          expect([...store.newest(at)].map(key)).toEqual(want.newest.slice(want.newest.indexOf(at) + 1).map(key));
          expect([...store.byId(at.id)].map((row) => row.id)).toEqual(want.byId.slice(want.byId.indexOf(at) + 1).map((row) => row.id));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('finds its computed rows by id, and no row by an id it does not have', () => {
    const store = new GeneratedOverlay(base);
    const ids = [...base.byId()].map((row) => row.id);
    for (const id of ids) expect(base.indexOf(id)).toBe(base.at(base.indexOf(id)!).index);
    expect(ids.map((id) => base.at(base.indexOf(id)!).id)).toEqual(ids);
    for (const id of ['', 'r', `${ids[0]}x`, `s${ids[0]!.slice(1)}`, ids[0]!.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))]) {
      expect(store.edit(id)).toBeUndefined();
    }
    expect(store.remove(ids[0]!)?.id).toBe(ids[0]);
    expect(store.remove(ids[0]!)).toBeUndefined();
    expect(store.edit(ids[0]!)).toBeUndefined();
  });

  it('samples only rows it has', () => {
    const store = new GeneratedOverlay(base);
    for (const row of [...base.newest()].slice(0, 150)) store.remove(row.id);
    store.add([{ id: 'added', createdAt: 1e9, updatedAt: 1e9, createdByUserId: null, cells: {} }]);
    const ids = new Set([...store.newest()].map((row) => row.id));
    for (let i = 0; i < 200; i += 1) expect(ids.has(store.sample(i / 200)!.id)).toBe(true);
  });
});

describe('RowList', () => {
  it('walks, edits and removes like the plain list it is', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const start = Array.from({ length: 30 }, (_, i) => ({
          id: `r${(i * 7) % 30}`,
          createdAt: i % 5,
          updatedAt: 0,
          createdByUserId: null,
          cells: {},
        }));
        const store = new RowList(start.map((row) => ({ ...row, cells: {} })));
        const rows = apply(store, start, ops, 'f');
        const want = reference(rows);
        expect([...store.newest()].map((row) => plain(row, 'f'))).toEqual(want.newest.map((row) => plain(row, 'f')));
        expect([...store.byId()].map((row) => row.id)).toEqual(want.byId.map((row) => row.id));
      }),
      { numRuns: 100 },
    );
  });
});

describe('RouteTable', () => {
  const table = new RouteTable([
    { method: 'GET', path: '/v1/tables/:tableId/rows' },
    { method: 'POST', path: '/v1/tables/:tableId/rows/query' },
    { method: 'POST', path: '/v1/webhook/:id' },
    { method: 'HEAD', path: '/v1/webhook/:id' },
  ]);

  it.each([
    ['GET', '/v1/tables/t%2F1/rows', { route: { method: 'GET', path: '/v1/tables/:tableId/rows' }, params: { tableId: 't/1' } }],
    ['GET', '/v1/tables//rows', { route: { method: 'GET', path: '/v1/tables/:tableId/rows' }, params: { tableId: '' } }],
    ['GET', '/v1/tables/x/rows/query', { allow: ['POST'] }],
    ['PUT', '/v1/webhook/abc', { allow: ['POST', 'HEAD'] }],
    ['GET', '/v1/tables/x/rows/', undefined],
    ['GET', '/v1/tables/%E0%A4%A/rows', undefined],
  ])('%s %s', (method, path, expected) => {
    expect(table.match(method, path)).toEqual(expected);
  });
});

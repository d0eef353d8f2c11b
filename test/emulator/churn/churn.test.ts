import { afterEach, describe, expect, vi } from 'vitest';
import { ActionRunner } from '../../../src/emulator/actions/action-runner.js';
import { addGeneratedTable, GeneratedOverlay } from '../../../src/emulator/store/generated-overlay.js';
import { Churn } from '../../../src/emulator/churn/churn.js';
import { ChurnSpecError, parseChurnRates, startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { LiveRows } from '../../../src/emulator/store/live-rows.js';
import { hasPlainCells } from '../../../src/emulator/store/cell-values.js';
import { buildSeed } from '../../../src/emulator/seed/index.js';
import type { Row, RowsPage } from '../../../src/service/index.js';
import { allRows, get, NOW, post, sleep, tableInfo } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// --churn: rows are added, updated and deleted over time; pages stay consistent while they change.

describe('parseChurnRates', () => {
  it.each([
    ['add:5/s,update:2/s,delete:0.1/s', { perSecond: { add: 5, update: 2, delete: 0.1, rerun: 0 } }],
    ['add:60/m', { perSecond: { add: 1, update: 0, delete: 0, rerun: 0 } }],
    ['rerun:1/m', { perSecond: { add: 0, update: 0, delete: 0, rerun: 1 / 60 } }],
    [' delete:.5/s , table=Edge Cases ', { perSecond: { add: 0, update: 0, delete: 0.5, rerun: 0 }, table: 'Edge Cases' }],
    ['update:3600/h,table=tbl_x', { perSecond: { add: 0, update: 1, delete: 0, rerun: 0 }, table: 'tbl_x' }],
  ])('parses %j', (text, spec) => {
    expect(parseChurnRates(text)).toEqual(spec);
  });

  it.each([
    '',
    'table=Leads',
    'add:5',
    'add:-1/s',
    'add:5/d',
    'grow:5/s',
    'add:1/s,add:2/s',
    'add:1/s,table=',
    'add:20000/s',
    'rerun:1/s,rerun:2/s',
  ])('refuses %j', (text) => {
    expect(() => parseChurnRates(text)).toThrow(ChurnSpecError);
  });

  it('refuses a table that does not exist at start', async () => {
    await expect(startEmulator({ port: 0, churn: 'add:1/s,table=Nope' })).rejects.toThrow(/no table "Nope"/);
  });
});

describe('churn, step by step', () => {
  const churned = (seed: number) => {
    const state = buildSeed('demo', NOW);
    addGeneratedTable(state, 1_000, NOW);
    const runner = new ActionRunner({ delayMs: 0, seed, now: () => NOW });
    const churn = new Churn(parseChurnRates('add:50/s,update:20/s,delete:10/s'), {
      tables: () => state.tables,
      live: new LiveRows(runner, () => NOW),
      now: () => NOW,
      seed,
    });
    for (let tick = 0; tick < 20; tick += 1) churn.tick(100);
    return state;
  };

  it('makes the changes its rates say, reproducibly from the seed', () => {
    const before = buildSeed('demo', NOW);
    addGeneratedTable(before, 1_000, NOW);
    const sizes = (state: typeof before) => state.tables.map((table) => table.rows.size);
    const total = (state: typeof before) => sizes(state).reduce((sum, size) => sum + size, 0);
    const state = churned(5);
    // 2 s: 100 added, 20 deleted (from tables that have rows)
    expect(total(state) - total(before)).toBe(80);
    const snapshot = (s: typeof state) => s.tables.map((table) => [...table.rows.newest()].map((row) => [row.id, row.updatedAt]));
    expect(snapshot(churned(5))).toEqual(snapshot(state));
    expect(snapshot(churned(6))).not.toEqual(snapshot(state));
    const leads = state.tables.find((table) => table.name === 'Leads')!;
    const enrich = leads.fields.find((field) => field.label === 'Enrich')!;
    const added = [...leads.rows.newest()].filter((row) => row.createdAt === NOW);
    expect(added.length).toBeGreaterThan(0);
    for (const row of added) expect(['success', 'failed', 'skipped', 'stopped']).toContain(row.cells[enrich.id]!.status);
    const generated = state.tables.find((table) => table.name === 'Generated')!.rows as GeneratedOverlay;
    expect(generated.deleted.size + generated.edited.size).toBeGreaterThan(0);
    // Rows added to the computed table keep computed cells: one small object each.
    expect(generated.added.size).toBeGreaterThan(0);
    expect([...generated.added.held()].filter((row) => hasPlainCells(row.cells))).toEqual([]);
  });
});

describe('churn: rerun', () => {
  it('"re-run column" on rows of tables with action columns: rows stay, their updatedAt moves, their action cells run again', () => {
    const state = buildSeed('demo', NOW);
    const leads = state.tables.find((table) => table.name === 'Leads')!;
    const before = new Map([...leads.rows.newest()].map((row) => [row.id, row.updatedAt]));
    const later = NOW + 60_000;
    const runner = new ActionRunner({ delayMs: 0, seed: 3, now: () => later });
    const churn = new Churn(parseChurnRates('rerun:5/s,table=Leads'), {
      tables: () => state.tables,
      live: new LiveRows(runner, () => later),
      now: () => later,
      seed: 3,
    });
    churn.tick(2_000);
    const rerun = [...leads.rows.newest()].filter((row) => row.updatedAt >= later);
    expect(leads.rows.size).toBe(before.size);
    // 10 reruns drawn: some rows may be drawn twice
    expect(rerun.length).toBeGreaterThan(0);
    expect(rerun.length).toBeLessThanOrEqual(10);
    for (const row of rerun) expect(before.get(row.id)).toBeLessThan(later);
    const enrich = leads.fields.find((field) => field.label === 'Enrich')!;
    for (const row of rerun)
      expect(['success', 'failed', 'skipped', 'stopped', 'queued', 'running', 'waiting']).toContain(row.cells[enrich.id]!.status);
  });

  it('leaves tables without action columns alone', () => {
    const state = buildSeed('demo', NOW);
    const plain = state.tables.filter((table) => !table.fields.some((field) => field.type === 'action') && table.rows.size > 0);
    expect(plain.length).toBeGreaterThan(0);
    const snapshot = () => plain.map((table) => [...table.rows.newest()].map((row) => row.updatedAt));
    const before = snapshot();
    const runner = new ActionRunner({ delayMs: 0, seed: 3, now: () => NOW + 1 });
    new Churn(parseChurnRates('rerun:50/s'), {
      tables: () => state.tables,
      live: new LiveRows(runner, () => NOW + 1),
      now: () => NOW + 1,
      seed: 3,
    }).tick(1_000);
    expect(snapshot()).toEqual(before);
  });
});

describe('pages while rows change', () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  interface Walk {
    tableId: string;
    limit: number;
    /** the pause between pages (the churn goes on meanwhile) */
    pauseMs: number;
    query?: object | undefined;
    /** told the number of pages read so far */
    onPage?: (pages: number) => void;
  }

  /** Every row of a walk of GET …/rows (or a query), `limit` a page, pausing between pages. */
  const walk = async (e: RunningEmulator, { tableId, limit, pauseMs, query, onPage }: Walk) => {
    const rows: Row[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const reply: { status: number; body: RowsPage } = query
        ? await post<RowsPage>(e, `/tables/${tableId}/rows/query`, { ...query, limit, ...(cursor ? { cursor } : {}) })
        : await get<RowsPage>(e, `/tables/${tableId}/rows?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(reply.status).toBe(200);
      rows.push(...reply.body.rows);
      onPage?.((pages += 1));
      cursor = reply.body.nextCursor;
      if (pauseMs > 0) await sleep(pauseMs);
    } while (cursor !== null);
    return rows;
  };

  it('never repeats or skips a row that lived throughout, and drops a row deleted mid-walk', async () => {
    const e = (emu = await startEmulator({
      port: 0,
      rateLimits: false,
      rows: 3_000,
      actionDelayMs: 20,
      churn: 'add:400/s,update:200/s,delete:150/s',
    }));
    const harness = await tableInfo(e, 'Generated', 'Bench');
    const leads = await tableInfo(e, 'Leads');
    for (const { table, limit, query } of [
      { table: harness.table, limit: 25, query: undefined },
      { table: leads.table, limit: 5, query: { filters: { rules: [{ fieldId: leads.id.name, operator: 'notNull' }] } } },
    ]) {
      const before = new Set((await allRows(e, table.id)).map((row) => row.id));
      // Rows near the end of the walk (the oldest, or the highest ids), deleted while it is near its start.
      const doomed = (query ? [...before].sort() : [...before]).slice(-40, -30);
      let pagesRead = 0;
      const scan = walk(e, { tableId: table.id, limit, pauseMs: 8, query, onPage: (pages) => (pagesRead = pages) });
      // the walk is under way, near its start
      await vi.waitFor(() => expect(pagesRead).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 5 });
      expect((await adminRoute(e, 'POST', `/tables/${table.id}/rows/delete`, { ids: doomed })).status).toBe(200);
      const deletedAt = Date.now();
      const seen = await scan;
      const after = new Set((await allRows(e, table.id)).map((row) => row.id));
      const ids = seen.map((row) => row.id);
      expect(new Set(ids).size, 'no row twice').toBe(ids.length);
      const lived = [...before].filter((id) => after.has(id));
      expect(lived.length).toBeGreaterThan(before.size * 0.5);
      const missing = lived.filter((id) => !ids.includes(id));
      expect(missing, 'every row that lived throughout').toEqual([]);
      for (const id of doomed) expect(after.has(id)).toBe(false);
      expect(Date.now() - deletedAt).toBeGreaterThan(50); // the walk went on after the deletion…
      expect(ids.filter((id) => doomed.includes(id))).toEqual([]); // …and the rows deleted ahead of it never came
      const keys = seen.map((row) => (query ? row.id : `${row.createdAt}|${row.id}`));
      const sorted = [...keys].sort();
      expect(keys, 'in order').toEqual(query ? sorted : sorted.reverse());
    }
  });

  it('shows adds and deletes in rowCount, and updated rows with a later updatedAt', async () => {
    const e = (emu = await startEmulator({
      port: 0,
      rateLimits: false,
      actionDelayMs: 0,
      churn: 'add:200/s,update:200/s,table=Companies',
    }));
    const companies = await tableInfo(e, 'Companies');
    const first = await allRows(e, companies.table.id);
    // churn goes on: wait for the rows it adds (200 a second) rather than a fixed time
    let tables: Array<{ id: string; rowCount: number }> = [];
    const countNow = async () => {
      tables = (await get(e, '/tables')).body.tables as typeof tables;
      return tables.find((table) => table.id === companies.table.id)!.rowCount;
    };
    await vi.waitFor(async () => expect(await countNow()).toBeGreaterThan(first.length + 20), { timeout: 10_000, interval: 50 });
    const rowCount = tables.find((table) => table.id === companies.table.id)!.rowCount;
    const later = await allRows(e, companies.table.id);
    expect(rowCount).toBeGreaterThan(first.length + 20);
    expect(later.length).toBeGreaterThanOrEqual(rowCount);
    const updated = later.filter((row) => {
      const old = first.find((candidate) => candidate.id === row.id);
      return old !== undefined && row.updatedAt > old.updatedAt;
    });
    expect(updated.length).toBeGreaterThan(0);
    const newest = later[0]!;
    expect(Date.parse(newest.createdAt)).toBeGreaterThan(Date.now() - 5_000);
    const otherTables = tables.filter((table) => table.id !== companies.table.id);
    const leads = await tableInfo(e, 'Leads');
    expect(otherTables.find((table) => table.id === leads.table.id)!.rowCount).toBe(250);
  });
});

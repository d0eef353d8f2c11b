import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Row, RowsPage } from '../../../src/service/index.js';
import { allRows, get, post, seededTable, tableInfo, type TableInfo } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md 4.6: pagination, cursor binding, order, and rows arriving between pages.

describe('cursors and order', () => {
  let emu: RunningEmulator, leads: TableInfo, rowsPath: string, queryPath: string;
  it.beforeAll(async ({ openForFile }) => {
    ({ emu, info: leads, rowsPath, queryPath } = await seededTable(openForFile, 'Leads', { ingestDelayMs: 60_000 }));
  });

  const ids = (rows: Row[]) => rows.map((row) => row.id);
  const byNewest = (a: Row, b: Row) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1);

  it('walks every row once, newest first, without search or filters', async () => {
    const rows = await allRows(emu, leads.table.id, undefined, 7);
    expect(rows).toHaveLength(250);
    expect(new Set(ids(rows)).size).toBe(250);
    expect(ids(rows)).toEqual(ids([...rows].sort(byNewest)));
    expect(ids(await allRows(emu, leads.table.id, {}, 33))).toEqual(ids(rows));
  });

  it('orders by row id with search text or filter rules', async () => {
    const searched = await allRows(emu, leads.table.id, { q: 'a' }, 9);
    expect(searched.length).toBeGreaterThan(50);
    expect(ids(searched)).toEqual(ids(searched).sort());
    const filtered = await allRows(emu, leads.table.id, { filters: { rules: [{ fieldId: leads.id.name, operator: 'notNull' }] } }, 50);
    expect(ids(filtered)).toEqual(ids(filtered).sort());
    expect(new Set(ids(filtered)).size).toBe(filtered.length);
  });

  it('a full last page has no next page', async () => {
    const contacts = await tableInfo(emu, 'Contacts', 'Sales');
    const page = (await get<RowsPage>(emu, `/tables/${contacts.table.id}/rows?limit=10`)).body;
    expect(page).toMatchObject({ hasNextPage: false, nextCursor: null });
    expect(page.rows).toHaveLength(10);
    const short = (await get<RowsPage>(emu, `/tables/${contacts.table.id}/rows?limit=9`)).body;
    expect(short.hasNextPage).toBe(true);
    expect(typeof short.nextCursor).toBe('string');
  });

  it('a page exactly at the end has no next page', async () => {
    const page1 = (await get<RowsPage>(emu, `${rowsPath}?limit=100`)).body;
    const page2 = (await get<RowsPage>(emu, `${rowsPath}?limit=100&cursor=${encodeURIComponent(page1.nextCursor!)}`)).body;
    const page3 = (await get<RowsPage>(emu, `${rowsPath}?limit=50&cursor=${encodeURIComponent(page2.nextCursor!)}`)).body;
    expect([page1.rows.length, page2.rows.length, page3.rows.length]).toEqual([100, 100, 50]);
    expect(page3).toMatchObject({ hasNextPage: false, nextCursor: null, limit: 50 });
    expect(page1.nextCursor!.length).toBeLessThanOrEqual(500);
  });

  it('serves an empty table as one empty page', async () => {
    const empty = await tableInfo(emu, 'Empty');
    const expected = { rows: [], limit: 100, nextCursor: null, hasNextPage: false };
    expect((await get(emu, `/tables/${empty.table.id}/rows`)).body).toEqual(expected);
    expect((await post(emu, `/tables/${empty.table.id}/rows/query`, { q: 'x' })).body).toEqual(expected);
  });

  it('refuses a cursor reused with another endpoint, search, filters or table', async () => {
    const fromGet = (await get<RowsPage>(emu, `${rowsPath}?limit=5`)).body.nextCursor!;
    const fromSearch = (await post<RowsPage>(emu, queryPath, { q: 'a', limit: 5 })).body.nextCursor!;
    const filters = { rules: [{ fieldId: leads.id.name, operator: 'notNull' }] };
    const fromFilter = (await post<RowsPage>(emu, queryPath, { filters, limit: 5 })).body.nextCursor!;
    const companies = await tableInfo(emu, 'Companies');
    const mismatch = /different endpoint, table, search or filters/;
    const cases: Array<Promise<{ status: number; body: { message: string } }>> = [
      post(emu, queryPath, { cursor: fromGet }),
      get(emu, `${rowsPath}?cursor=${encodeURIComponent(fromSearch)}&q=b`),
      post(emu, queryPath, { cursor: fromSearch, q: 'b' }),
      post(emu, queryPath, { cursor: fromSearch, q: 'a', filters }),
      post(emu, queryPath, { cursor: fromFilter, filters: { rules: [{ fieldId: leads.id.name, operator: 'null' }] } }),
      post(emu, queryPath, { cursor: fromFilter }),
      get(emu, `/tables/${companies.table.id}/rows?cursor=${encodeURIComponent(fromGet)}`),
    ];
    for (const reply of await Promise.all(cases)) {
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(mismatch);
    }
    expect((await post(emu, queryPath, { cursor: fromSearch, query: 'a', limit: 3 })).status).toBe(200);
    expect((await post(emu, queryPath, { cursor: fromFilter, filters: { combinator: 'and', rules: filters.rules } })).status).toBe(200);
  });

  it('refuses an edited or hand-built cursor', async () => {
    const cursor = (await get<RowsPage>(emu, `${rowsPath}?limit=5`)).body.nextCursor!;
    const [payload, signature] = cursor.split('.') as [string, string];
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const edited = `${Buffer.from(JSON.stringify({ ...data, createdAt: 0 })).toString('base64url')}.${signature}`;
    const flipped = `${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [edited, flipped, payload, `${cursor}.x`, Buffer.from('{"offset":100}').toString('base64url')]) {
      const reply = await get(emu, `${rowsPath}?cursor=${encodeURIComponent(bad)}`);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(/cursor is not valid/);
    }
  });

  it('never skips or repeats an existing row when rows arrive between pages', async () => {
    const signups = await tableInfo(emu, 'Signups');
    const before = await allRows(emu, signups.table.id);
    const path = `/tables/${signups.table.id}/rows`;
    const webhook = emu.webhooks[signups.table.id]!;
    const push = async (n: number) => {
      const objects = Array.from({ length: n }, (_, i) => ({ email: `late${Date.now()}-${i}@x.example`, name: `Late ${i}` }));
      expect((await post(emu, webhook, objects, { key: null })).status).toBe(200);
      emu.flushIntake();
    };
    // newest first
    const seen: string[] = [];
    let page = (await get<RowsPage>(emu, `${path}?limit=3`)).body;
    seen.push(...ids(page.rows));
    while (page.hasNextPage) {
      await push(2);
      page = (await get<RowsPage>(emu, `${path}?limit=3&cursor=${encodeURIComponent(page.nextCursor!)}`)).body;
      seen.push(...ids(page.rows));
    }
    expect(seen).toEqual(ids(before));
    // id order with a filter: new rows may land before or after the cursor; existing rows are each seen once
    const existing = await allRows(emu, signups.table.id, { q: '@' });
    const walked: string[] = [];
    let filtered = (await post<RowsPage>(emu, `${path}/query`, { q: '@', limit: 4 })).body;
    walked.push(...ids(filtered.rows));
    while (filtered.hasNextPage) {
      await push(3);
      filtered = (await post<RowsPage>(emu, `${path}/query`, { q: '@', limit: 4, cursor: filtered.nextCursor })).body;
      walked.push(...ids(filtered.rows));
    }
    expect(new Set(walked).size).toBe(walked.length);
    for (const id of ids(existing)) expect(walked).toContain(id);
    expect(walked).toEqual([...walked].sort());
  });
});

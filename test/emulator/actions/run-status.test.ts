import { afterEach, describe, expect, vi } from 'vitest';

import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';

import type { Row } from '../../../src/service/index.js';
import { allRows, queryRows, tableInfo } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// Action cells seen through the service: run-status filters answer from the state at the moment of the
// request, and seeded cells that are not final go on running.

const FINAL = ['success', 'failed', 'skipped', 'stopped'];

describe('run-status filters answer from the state at the moment of the request', () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  const RUN_OPERATORS = ['hasError', 'hasNoError', 'hasNotRun', 'runConditionNotMet', 'isFound', 'isNotFound'] as const;
  /** docs/service-api.md 3 and the emulator's reading of each operator (filter-match.ts). */
  const expected: Record<(typeof RUN_OPERATORS)[number], (cell: Row['cells'][string] | undefined) => boolean> = {
    hasError: (cell) => cell?.status === 'failed' || (cell?.errorMessage ?? null) !== null,
    hasNoError: (cell) => !(cell?.status === 'failed' || (cell?.errorMessage ?? null) !== null),
    hasNotRun: (cell) => [undefined, null, 'queued', 'waiting', 'stopped'].includes(cell?.status),
    runConditionNotMet: (cell) => cell?.status === 'skipped',
    isFound: (cell) => cell?.value !== undefined && cell.value !== null && cell.value !== '',
    isNotFound: (cell) => cell?.value === undefined || cell.value === null || cell.value === '',
  };

  it('sees every state, set by hand or by a run, and each change', async () => {
    const e = (emu = await startEmulator({ port: 0, rateLimits: false, actionDelayMs: 60_000 }));
    const created = await adminRoute(e, 'POST', '/tables', {
      workspace: 'Marketing',
      name: 'Runs',
      fields: [
        { label: 'Input', type: 'text' },
        { label: 'A', type: 'action', action: { from: 'Input', derive: 'upper' } },
        { label: 'B', type: 'action', action: { dependsOn: 'A' } },
      ],
    });
    const tableId: string = created.body.table.id;
    const [, a, b] = (created.body.fields as Array<{ id: string }>).map((field) => field.id);
    const given = [
      { status: 'success', value: 'V' },
      { status: 'failed', errorMessage: 'boom' },
      { status: 'skipped' },
      { status: 'stopped' },
      { status: 'manual', value: 'by hand' },
      { status: 'running' },
      { status: 'waiting' },
      { value: 'no status' },
      { errorMessage: 'error without status' },
    ];
    const rows = [...given.map((cell) => ({ cells: { Input: 'x', A: cell, B: null } })), { cells: { Input: 'live' } }];
    const added = (await adminRoute<{ rows: Row[] }>(e, 'POST', `/tables/${tableId}/rows`, { rows })).body.rows;
    const live = added.at(-1)!;
    expect([live.cells[a!]!.status, live.cells[b!]!.status]).toEqual(['queued', 'waiting']);

    const check = async (fieldId: string) => {
      const current = await allRows(e, tableId);
      for (const operator of RUN_OPERATORS) {
        const matched = await queryRows(e, tableId, { rules: [{ fieldId, operator }] });
        const want = current.filter((row) => expected[operator](row.cells[fieldId]));
        expect(matched.map((row) => row.id).sort(), `${operator} on ${fieldId}`).toEqual(want.map((row) => row.id).sort());
      }
    };
    await check(a!);
    await check(b!);
    expect((await queryRows(e, tableId, { rules: [{ fieldId: a!, operator: 'hasNotRun' }] })).map((row) => row.id)).toContain(live.id);

    await adminRoute(e, 'PATCH', `/tables/${tableId}/rows/${live.id}`, { cells: { A: { status: 'running' } } });
    expect((await queryRows(e, tableId, { rules: [{ fieldId: a!, operator: 'hasNotRun' }] })).map((row) => row.id)).not.toContain(live.id);
    await adminRoute(e, 'PATCH', `/tables/${tableId}/rows/${live.id}`, { cells: { A: { status: 'success', value: 'LIVE' } } });
    expect((await queryRows(e, tableId, { rules: [{ fieldId: a!, operator: 'isFound' }] })).map((row) => row.id)).toContain(live.id);
    // A final A releases B, which waited for it: B is queued now.
    const after = (await allRows(e, tableId)).find((row) => row.id === live.id)!;
    expect(after.cells[b!]!.status).toBe('queued');
    await check(a!);
    await check(b!);
  });

  it('sees a live run move from queued to running to final', async () => {
    const e = (emu = await startEmulator({ port: 0, rateLimits: false, actionDelayMs: 300 }));
    const inbox = await tableInfo(e, 'Inbox');
    const domain = inbox.id.domain!;
    const ids = async (operator: string) =>
      (await queryRows(e, inbox.table.id, { rules: [{ fieldId: domain, operator }] })).map((row) => row.id);
    const [row] = (
      await adminRoute<{ rows: Row[] }>(e, 'POST', `/tables/${inbox.table.id}/rows`, { rows: [{ cells: { Email: 'q@r.example' } }] })
    ).body.rows;
    expect(await ids('hasNotRun')).toEqual([row!.id]);
    await vi.waitFor(async () => expect((await allRows(e, inbox.table.id))[0]!.cells[domain]!.status).toBe('running'), {
      timeout: 2_000,
      interval: 10,
    });
    expect(await ids('hasNotRun')).toEqual([]);
    expect(await ids('isNotFound')).toEqual([row!.id]);
    await vi.waitFor(async () => expect(FINAL).toContain((await allRows(e, inbox.table.id))[0]!.cells[domain]!.status), {
      timeout: 2_000,
      interval: 10,
    });
    const final = (await allRows(e, inbox.table.id))[0]!.cells[domain]!;
    expect(await ids('isFound')).toEqual(final.status === 'success' ? [row!.id] : []);
    expect(await ids('hasError')).toEqual(final.status === 'failed' ? [row!.id] : []);
    expect(await ids('runConditionNotMet')).toEqual(final.status === 'skipped' ? [row!.id] : []);
  });
});

describe('seeded action cells that are not final', () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });
  const NOT_FINAL = ['queued', 'waiting', 'running'];
  const leadsEnrich = async (e: RunningEmulator) => {
    const leads = await tableInfo(e, 'Leads');
    const rows = await allRows(e, leads.table.id);
    return { leads, rows, cell: (row: Row) => row.cells[leads.id.enrich!] };
  };

  it('run on like new ones (live, the default): a step every action delay, then final, each step moving updatedAt', async () => {
    const e = (emu = await startEmulator({ port: 0, rateLimits: false, actionDelayMs: 150 }));
    const before = await leadsEnrich(e);
    const pending = before.rows.filter((row) => NOT_FINAL.includes(before.cell(row)?.status ?? ''));
    expect(new Set(pending.map((row) => before.cell(row)!.status))).toEqual(new Set(NOT_FINAL));
    let after = before;
    await vi.waitFor(
      async () => {
        after = await leadsEnrich(e);
        expect(after.rows.filter((row) => NOT_FINAL.includes(after.cell(row)?.status ?? ''))).toEqual([]);
      },
      { timeout: 10_000, interval: 50 },
    );
    const now = new Map(after.rows.map((row) => [row.id, row]));
    for (const row of pending) {
      const settled = now.get(row.id)!;
      expect(FINAL).toContain(after.cell(settled)!.status);
      expect(Date.parse(settled.updatedAt)).toBeGreaterThan(Date.parse(row.updatedAt));
      const email = settled.cells[before.leads.id.email!]!.value as string;
      if (after.cell(settled)!.status === 'success') expect(after.cell(settled)!.value).toBe(email.split('@')[1]);
    }
    // the cells that were final are as seeded
    for (const row of before.rows.filter((row) => !pending.includes(row))) expect(now.get(row.id)).toEqual(row);
  });

  it('take their outcomes from the fault seed, on a stream of their own: rows that arrive later draw the same either way', async () => {
    const outcomes = async (faultSeed: number, seededActions: 'live' | 'pending') => {
      const e = (emu = await startEmulator({ port: 0, rateLimits: false, actionDelayMs: 0, faultSeed, seededActions }));
      const { rows, cell } = await leadsEnrich(e);
      const inbox = await tableInfo(e, 'Inbox');
      const added = Array.from({ length: 40 }, (_, i) => ({ cells: { Email: `person${i}@company${i % 7}.example` } }));
      const reply = await adminRoute<{ rows: Row[] }>(e, 'POST', `/tables/${inbox.table.id}/rows`, { rows: added });
      await e.close();
      emu = undefined;
      return {
        seeded: rows.map((row) => `${cell(row)?.status}:${JSON.stringify(cell(row)?.value)}`),
        arrived: reply.body.rows.map((row) => `${row.cells[inbox.id.domain!]!.status}/${row.cells[inbox.id.company!]!.status}`),
      };
    };
    const first = await outcomes(7, 'live');
    expect(first.seeded.filter((state) => NOT_FINAL.includes(state.split(':')[0]!))).toEqual([]);
    expect(await outcomes(7, 'live')).toEqual(first);
    const other = await outcomes(8, 'live');
    expect(other.seeded).not.toEqual(first.seeded);
    const pending = await outcomes(7, 'pending');
    expect(pending.arrived).toEqual(first.arrived);
    expect(pending.seeded.filter((state) => NOT_FINAL.includes(state.split(':')[0]!)).length).toBeGreaterThan(0);
  });

  it('stay as seeded with seededActions "pending" (--seeded-actions pending), while new rows run', async () => {
    const e = (emu = await startEmulator({ port: 0, rateLimits: false, actionDelayMs: 100, seededActions: 'pending' }));
    const before = await leadsEnrich(e);
    const inbox = await tableInfo(e, 'Inbox');
    await adminRoute(e, 'POST', `/tables/${inbox.table.id}/rows`, { rows: [{ cells: { Email: 'ann@initech.example' } }] });
    await vi.waitFor(async () => expect(FINAL).toContain((await allRows(e, inbox.table.id))[0]!.cells[inbox.id.company!]!.status), {
      timeout: 10_000,
      interval: 20,
    });
    expect((await leadsEnrich(e)).rows).toEqual(before.rows);
  });
});

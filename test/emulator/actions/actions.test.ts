import { afterEach, describe, expect, vi } from 'vitest';
import { actionOutcome, StepScheduler } from '../../../src/emulator/actions/action-runner.js';
import { deriveValue } from '../../../src/emulator/store/cell-values.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/index.js';
import type { FieldRec, StoredRow } from '../../../src/emulator/store/model.js';
import type { Row, RowsPage } from '../../../src/service/index.js';
import { allRows, get, post, tableInfo } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// Action columns run on rows that arrive: queued -> running -> final (waiting first behind a dependency).

const FINAL = ['success', 'failed', 'skipped', 'stopped'];

describe('deriveValue', () => {
  it.each([
    ['domain', 'Ada@Acme-Corp.example', { value: 'acme-corp.example' }],
    ['domain', 'https://www.globex.example/about', { value: 'globex.example' }],
    ['domain', 'initech.example', { value: 'initech.example' }],
    ['domain', 'bob', { error: 'no domain in "bob"' }],
    ['domain', 'a@b', { error: 'no domain in "a@b"' }],
    ['company', 'ada@acme-corp.example', { value: 'Acme Corp' }],
    ['company', 'mail.umbrella.example', { value: 'Umbrella' }],
    ['company', '', { error: 'no domain in ""' }],
    ['upper', 'abc', { value: 'ABC' }],
    ['length', '日本', { value: 2 }],
    ['echo', { a: 1 }, { value: { a: 1 } }],
    [undefined, 7, { value: 7 }],
  ] as const)('%s of %j', (rule, input, expected) => {
    expect(deriveValue(rule, input)).toEqual(expected);
  });
});

describe('actionOutcome', () => {
  const email: FieldRec = { id: 'e', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false };
  const domain: FieldRec = { ...email, id: 'd', type: 'action', action: { from: 'e', derive: 'domain' } };
  const company: FieldRec = { ...email, id: 'c', type: 'action', action: { dependsOn: 'd', derive: 'company' } };
  const bare: FieldRec = { ...email, id: 'b', type: 'action' };
  const row = (cells: StoredRow['cells']): StoredRow => ({ id: 'r', createdAt: 0, updatedAt: 0, createdByUserId: null, cells });

  it.each(
    (
      [
        ['derives the value on success', domain, { e: { value: 'x@y.example' } }, 0.1, { status: 'success', value: 'y.example' }],
        [
          'fails when nothing can be derived',
          domain,
          { e: { value: 'nope' } },
          0.1,
          { status: 'failed', errorMessage: 'no domain in "nope"' },
        ],
        ['skips an empty input (run condition not met)', domain, {}, 0.1, { status: 'skipped' }],
        [
          'reads a dependency that succeeded',
          company,
          { d: { status: 'success', value: 'y.example' } },
          0.5,
          { status: 'success', value: 'Y' },
        ],
        ['skips when the dependency did not succeed', company, { d: { status: 'failed', errorMessage: 'x' } }, 0.1, { status: 'skipped' }],
        [
          'fails by the draw with a provider error',
          domain,
          { e: { value: 'x@y.example' } },
          0.86,
          { status: 'failed', errorMessage: expect.anything() },
        ],
        ['is skipped by the draw', domain, { e: { value: 'x@y.example' } }, 0.93, { status: 'skipped' }],
        ['is stopped by the draw', domain, { e: { value: 'x@y.example' } }, 0.99, { status: 'stopped' }],
        ['without an input reports that it ran', bare, {}, 0.2, { status: 'success', value: 'ok' }],
      ] as Array<[string, FieldRec, StoredRow['cells'], number, unknown]>
    ).map(([name, field, cells, draw, expected]) => ({ name, field, cells, draw, expected })),
  )('$name', ({ field, cells, draw, expected }) => {
    expect(actionOutcome(field, row(cells), draw)).toEqual(expected);
  });
});

describe('StepScheduler', () => {
  it('batches items due at the same time on one timer, and runs everything at once after finishAll', () => {
    vi.useFakeTimers({ now: 1_000_001 }); // due times round up to 5 ms: +100 ms from here is 1_000_105
    try {
      const batches: number[][] = [];
      const scheduler = new StepScheduler<number>(100, (items) => batches.push(items));
      for (let i = 0; i < 1_000; i += 1) scheduler.add(i);
      vi.advanceTimersByTime(3);
      scheduler.add(1_000);
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(101);
      expect(batches.map((batch) => batch.length)).toEqual([1_001]);
      scheduler.add(1);
      vi.advanceTimersByTime(10);
      scheduler.add(2);
      expect(vi.getTimerCount()).toBe(2);
      scheduler.finishAll();
      expect(batches.slice(1)).toEqual([[1, 2]]);
      expect(vi.getTimerCount()).toBe(0);
      scheduler.add(3);
      scheduler.drain();
      expect(batches.at(-1)).toEqual([3]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('action runs over HTTP', () => {
  let emu: RunningEmulator | undefined;
  const begin = async (options: EmulatorOptions) => (emu = await startEmulator({ port: 0, rateLimits: false, ...options }));
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('a pushed row goes through each state in order, and each step moves updatedAt', async () => {
    const e = await begin({ actionDelayMs: 200 });
    const inbox = await tableInfo(e, 'Inbox');
    const { domain, company } = inbox.id;
    const emails = ['ada@acme-corp.example', 'bob', 'cy@globex.example'];
    expect(
      (
        await post(
          e,
          e.webhooks[inbox.table.id]!,
          emails.map((email) => ({ email })),
          { key: null },
        )
      ).status,
    ).toBe(200);
    e.flushIntake();
    const seen = new Map<string, Array<{ state: string; updatedAt: string }>>();
    await vi.waitFor(
      async () => {
        const rows = (await get<RowsPage>(e, `/tables/${inbox.table.id}/rows`)).body.rows;
        for (const row of rows) {
          const state = `${row.cells[domain!]?.status}/${row.cells[company!]?.status}`;
          const history = seen.get(row.id) ?? [];
          if (history.at(-1)?.state !== state) history.push({ state, updatedAt: row.updatedAt });
          seen.set(row.id, history);
        }
        expect(rows.every((row) => FINAL.includes(row.cells[company!]!.status!))).toBe(true);
      },
      { timeout: 5_000, interval: 5 },
    );
    expect(seen.size).toBe(3);
    for (const history of seen.values()) {
      const states = history.map((step) => step.state.replace(/success|failed|skipped|stopped/g, 'final'));
      expect(states).toEqual(['queued/waiting', 'running/waiting', 'final/queued', 'final/running', 'final/final']);
      const times = history.map((step) => Date.parse(step.updatedAt));
      expect(times.every((time, i) => i === 0 || time > times[i - 1]!)).toBe(true);
    }
    const rows = await allRows(e, inbox.table.id);
    for (const row of rows) {
      const email = row.cells[inbox.id.email!]!.value as string;
      const [domainCell, companyCell] = [row.cells[domain!]!, row.cells[company!]!];
      if (email === 'bob') expect(domainCell).toEqual({ value: null, status: 'failed', errorMessage: 'no domain in "bob"' });
      if (domainCell.status === 'success') expect(domainCell.value).toBe(email.split('@')[1]);
      else expect(companyCell).toEqual({ value: null, status: 'skipped' });
      if (companyCell.status === 'success') expect(companyCell.value).toBe(email === emails[0] ? 'Acme Corp' : 'Globex');
    }
  });

  it('with --action-delay 0 the rows are final in the request that made them visible', async () => {
    const e = await begin({ actionDelayMs: 0, ingestDelayMs: 60_000 });
    const inbox = await tableInfo(e, 'Inbox');
    await post(e, e.webhooks[inbox.table.id]!, { email: 'dee@initech.example' }, { key: null });
    expect((await get<RowsPage>(e, `/tables/${inbox.table.id}/rows`)).body.rows).toEqual([]);
    expect((await adminRoute(e, 'POST', '/flush')).status).toBe(200);
    const [row] = (await get<RowsPage>(e, `/tables/${inbox.table.id}/rows`)).body.rows;
    expect(FINAL).toContain(row!.cells[inbox.id.domain!]!.status);
    expect(FINAL).toContain(row!.cells[inbox.id.company!]!.status);
    expect(Date.parse(row!.updatedAt)).toBeGreaterThan(Date.parse(row!.createdAt));
  });

  it('draws outcomes from the fault seed: the same seed gives the same outcomes, mostly success', async () => {
    const outcomes = async (faultSeed: number) => {
      const e = await begin({ actionDelayMs: 0, faultSeed, seed: 'demo' });
      const inbox = await tableInfo(e, 'Inbox');
      const rows = Array.from({ length: 80 }, (_, i) => ({ cells: { Email: `person${i}@company${i % 7}.example` } }));
      const reply = await adminRoute<{ rows: Row[] }>(e, 'POST', `/tables/${inbox.table.id}/rows`, { rows });
      await e.close();
      emu = undefined;
      return reply.body.rows.map((row) => `${row.cells[inbox.id.domain!]!.status}/${row.cells[inbox.id.company!]!.status}`);
    };
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    expect(await outcomes(8)).not.toEqual(first);
    const domains = first.map((state) => state.split('/')[0]);
    expect(domains.filter((status) => status === 'success').length).toBeGreaterThan(55);
    expect(new Set(domains).size).toBeGreaterThan(1);
  });
});

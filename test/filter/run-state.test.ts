import { describe, expect, it } from 'vitest';
import { planFilters } from '../../src/filter/build.js';
import type { CellStatus, Row } from '../../src/service/index.js';
import { catchFilterError } from './catch-filter-error.js';
import { fields } from './fixtures.js';

// `COL.status` in --where: the run state by the key exports give it, tested here on the rows the
// service returns, and narrowed by the service's run-status operator where one covers the states.

const plan = (where: string[], any = false) => planFilters({ where, fields, any });

/** A row whose "Enrich company" cell has that status (none: no cell). */
const row = (status: CellStatus | 'none'): Row => ({
  id: `row_${status}`,
  tableId: 'tbl',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  createdByUserId: null,
  cells: status === 'none' ? {} : { fld_enrich: { value: null, status } },
});
const ALL = (['success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual', 'none'] as const).map(row);
const passing = (where: string[], any = false): string[] =>
  ALL.filter((candidate) => plan(where, any).local!.test(candidate)).map((candidate) => candidate.id.slice(4));

describe('COL.status = STATE', () => {
  it.each([
    ['"Enrich company.status" = failed', ['failed'], { fieldId: 'fld_enrich', operator: 'hasError' }],
    ['"Enrich company.status" = SKIPPED', ['skipped'], { fieldId: 'fld_enrich', operator: 'runConditionNotMet' }],
    ['enrichment.status = stopped', ['stopped'], { fieldId: 'fld_enrich', operator: 'hasNotRun' }],
    ['fld_enrich.status null', ['none'], { fieldId: 'fld_enrich', operator: 'hasNotRun' }],
    [
      '"Enrich company.status" != failed',
      ['success', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual', 'none'],
      { fieldId: 'fld_enrich', operator: 'hasNoError' },
    ],
  ])('%s: the service narrows with its operator, the state is tested here', (where, states, narrowing) => {
    const { filters, local } = plan([where]);
    expect(filters).toEqual({ combinator: 'and', rules: [narrowing] });
    expect(local?.narrowed).toBe(true);
    expect(passing([where])).toEqual(states);
  });

  it.each([
    ['"Enrich company.status" = success', ['success']],
    ['"Enrich company.status" in [queued, running, waiting]', ['queued', 'waiting', 'running']],
    ['"Enrich company.status" notIn [success, none]', ['failed', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual']],
    ['"Enrich company.status" = manual', ['manual']],
  ])('%s: no operator covers it: tested here on every row', (where, states) => {
    const { filters, local } = plan([where]);
    expect(filters).toBeUndefined();
    expect(local?.narrowed).toBe(false);
    expect(passing([where])).toEqual(states);
  });

  it('in [failed, skipped]: the service narrows with either operator', () => {
    const { filters } = plan(['"Enrich company.status" in [failed, skipped]']);
    expect(filters).toEqual({
      combinator: 'or',
      rules: [
        { fieldId: 'fld_enrich', operator: 'hasError' },
        { fieldId: 'fld_enrich', operator: 'runConditionNotMet' },
      ],
    });
  });

  it('beside other terms with and: they go to the service, the state is tested here', () => {
    const { filters, local } = plan(['Age > 30 and "Enrich company.status" = success', 'Name = x']);
    expect(filters).toEqual({
      combinator: 'and',
      rules: [
        { fieldId: 'fld_age', operator: '>', value: 30 },
        { fieldId: 'fld_name', operator: '=', value: 'x' },
      ],
    });
    expect(local?.text).toBe('"Enrich company.status" = success');
  });

  it('--any over run-state expressions only: one test, narrowed when each is', () => {
    expect(passing(['"Enrich company.status" = failed', '"Enrich company.status" = skipped'], true)).toEqual(['failed', 'skipped']);
    expect(plan(['"Enrich company.status" = failed', '"Enrich company.status" = skipped'], true).filters?.rules).toEqual([
      { fieldId: 'fld_enrich', operator: 'hasError' },
      { fieldId: 'fld_enrich', operator: 'runConditionNotMet' },
    ]);
  });

  it('a label that is really "X.status" stays that column', () => {
    const own = planFilters({ where: ['"Name.status" = x'], fields: [...fields, { ...fields[0]!, id: 'fld_ns', label: 'Name.status' }] });
    expect(own.local).toBeUndefined();
    expect(own.filters?.rules).toEqual([{ fieldId: 'fld_ns', operator: '=', value: 'x' }]);
  });
});

describe('mistakes and hints', () => {
  it.each([
    [
      '"Enrich company.status" = done',
      /"done" is not a run state/,
      /success, failed, skipped, stopped, queued, waiting, running, manual, none/,
    ],
    ['"Enrich company.status" contains fail', /a run state takes =, !=, in, notIn, null, notNull, not contains/, /= failed/],
    ['"Enrich company.status" = failed or Age > 3', /cannot be joined with or to a test of the service/, /with and/],
    ['"Enrich company.status" in failed', /in on a run state takes a list of states/, /run states/],
  ])('%s', (where, message, hint) => {
    const error = catchFilterError(() => plan([where]));
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(hint);
  });

  it('a run state compared with the column itself gets a hint (the cell value is compared, as asked)', () => {
    const { filters, hints } = plan(['"Enrich company" = failed']);
    expect(filters?.rules).toEqual([{ fieldId: 'fld_enrich', operator: '=', value: 'failed' }]);
    expect(hints).toEqual([
      '"Enrich company" = failed compares the cell\'s value; for its run state write "Enrich company.status" = failed',
    ]);
    expect(plan(['Name = failed']).hints).toEqual([]);
  });
});

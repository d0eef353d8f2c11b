import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { acceptedOperators, type Row } from '../../../src/service/index.js';
import { FilterOracle, lower } from './filter-oracle.js';
import { post, queryRows, emulatorOptions, writeFormatOneState, type SavedRow } from '../helpers.js';
import { field } from '../../helpers/schemas.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md 4.5: number, boolean, date (presets relative to the emulator clock), select, multi_select and
// member semantics. The clock is fixed at Wednesday 2025-05-14 12:00 UTC.

const day = (text: string) => Date.parse(`${text}T00:00:00Z`);

describe('typed filters', () => {
  let emu: RunningEmulator;
  let leads: FilterOracle;
  let edge: FilterOracle;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions())).emu;
    leads = await FilterOracle.of(emu, 'Leads');
    edge = await FilterOracle.of(emu, 'Edge Cases');
  });

  const num = (oracle: FilterOracle, row: Row, name: string) => oracle.value(row, name) as number | undefined;

  it('compares numbers numerically, with the value as a number or JSON text', async () => {
    const employees = (row: Row) => num(leads, row, 'employees');
    await leads.expectRule('employees', '>', 1000, (row) => (employees(row) ?? -Infinity) > 1000);
    await leads.expectRule('employees', '>=', '1000', (row) => (employees(row) ?? -Infinity) >= 1000);
    await leads.expectRule('employees', '<', 50, (row) => (employees(row) ?? Infinity) < 50);
    await leads.expectRule('employees', '<=', '9', (row) => (employees(row) ?? Infinity) <= 9);
    const some = employees(leads.rows.find((row) => employees(row) !== undefined)!)!;
    await leads.expectRule('employees', '=', String(some), (row) => employees(row) === some);
    await leads.expectRule('employees', '!=', some, (row) => employees(row) !== some);
    await edge.expectRule('count', '>', 1000, (row) => num(edge, row, 'count')! > 1000);
    await edge.expectRule('count', '<', 0, (row) => num(edge, row, 'count')! < 0);
  });

  it('compares booleans, given as true/false or as their JSON text', async () => {
    const qualified = (row: Row) => leads.value(row, 'qualified');
    await leads.expectRule('qualified', '=', true, (row) => qualified(row) === true);
    await leads.expectRule('qualified', '=', 'false', (row) => qualified(row) === false);
    await leads.expectRule('qualified', '!=', true, (row) => qualified(row) !== true);
  });

  const contacted = (row: Row) => {
    const value = leads.value(row, 'last_contacted');
    return value === undefined ? undefined : Date.parse(value as string);
  };
  const within = (start: number, end: number) => (row: Row) => {
    const at = contacted(row);
    return at !== undefined && at >= start && at < end;
  };

  it('compares dates by instant; a date-only value is its whole UTC day', async () => {
    await leads.expectRule('last_contacted', '=', '2025-05-14', within(day('2025-05-14'), day('2025-05-15')));
    await leads.expectRule('last_contacted', '<', '2025-05-01', within(-Infinity, day('2025-05-01')));
    await leads.expectRule('last_contacted', '>', '2025-05-13', within(day('2025-05-14'), Infinity));
    const exact = leads.value(
      leads.rows.find((row) => contacted(row) !== undefined)!,
      'last_contacted',
    ) as string;
    await leads.expectRule('last_contacted', '=', exact, (row) => contacted(row) === Date.parse(exact));
    await leads.expectRule('last_contacted', '>', exact, within(Date.parse(exact) + 1, Infinity));
  });

  it('between is inclusive at both ends', async () => {
    const sorted = leads.rows
      .map(contacted)
      .filter((at): at is number => at !== undefined)
      .sort((a, b) => a - b);
    const [start, end] = [sorted[10]!, sorted[60]!];
    await leads.expectRule(
      'last_contacted',
      'between',
      { start: new Date(start).toISOString(), end: new Date(end).toISOString() },
      within(start, end + 1),
    );
    await leads.expectRule(
      'last_contacted',
      'between',
      { start: '2025-05-10T00:00:00+02:00', end: '2025-05-14T23:59:59' },
      within(day('2025-05-09') + 22 * 3_600_000, Date.parse('2025-05-14T23:59:59Z') + 1),
    );
  });

  it.each([
    ['today', '2025-05-14', '2025-05-15'],
    ['tomorrow', '2025-05-15', '2025-05-16'],
    ['yesterday', '2025-05-13', '2025-05-14'],
    ['thisWeek', '2025-05-12', '2025-05-19'],
    ['lastWeek', '2025-05-05', '2025-05-12'],
    ['thisMonth', '2025-05-01', '2025-06-01'],
    ['lastMonth', '2025-04-01', '2025-05-01'],
    ['thisQuarter', '2025-04-01', '2025-07-01'],
    ['lastQuarter', '2025-01-01', '2025-04-01'],
    ['thisYear', '2025-01-01', '2026-01-01'],
    ['lastYear', '2024-01-01', '2025-01-01'],
    ['last7Days', '2025-05-08', '2025-05-15'],
    ['last14Days', '2025-05-01', '2025-05-15'],
    ['last30Days', '2025-04-15', '2025-05-15'],
    ['last60Days', '2025-03-16', '2025-05-15'],
    ['last90Days', '2025-02-14', '2025-05-15'],
    ['last180Days', '2024-11-16', '2025-05-15'],
    ['last365Days', '2024-05-15', '2025-05-15'],
  ])('isDatePreset %s covers [%s, %s) at the emulator clock', async (preset, from, to) => {
    await leads.expectRule('last_contacted', 'isDatePreset', preset, within(day(from), day(to)));
  });

  it('matches a select by option value or label, case-insensitively', async () => {
    const stage = (row: Row) => leads.value(row, 'stage');
    await leads.expectRule('stage', '=', 'closed_won', (row) => stage(row) === 'closed_won');
    await leads.expectRule('stage', '=', 'closed won', (row) => stage(row) === 'closed_won');
    await leads.expectRule('stage', '!=', 'New', (row) => stage(row) !== 'new');
    await leads.expectRule('stage', 'in', ['Qualified', 'closed_lost'], (row) =>
      ['qualified', 'closed_lost'].includes(stage(row) as string),
    );
    await leads.expectRule('stage', 'notIn', ['new'], (row) => stage(row) !== 'new');
    await edge.expectRule('choice', '=', 'Beta', (row) => edge.value(row, 'choice') === 'opt_2k4');
  });

  it('matches a multi_select when any item is in the list', async () => {
    const tags = (row: Row) => (leads.value(row, 'tags') as string[] | undefined) ?? [];
    await leads.expectRule('tags', 'in', ['VIP', 'partner'], (row) => tags(row).some((tag) => tag === 'vip' || tag === 'partner'));
    await leads.expectRule('tags', 'notIn', ['smb'], (row) => !tags(row).includes('smb'));
  });

  it('matches a member by id, email or name', async () => {
    const owner = (row: Row) => leads.value(row, 'owner') as { id: string; name: string; email: string } | undefined;
    const someone = owner(leads.rows.find((row) => owner(row))!)!;
    for (const key of [someone.id, someone.email.toUpperCase(), someone.name]) {
      await leads.expectRule('owner', '=', key, (row) => owner(row)?.id === someone.id);
    }
    await leads.expectRule('owner', '!=', someone.email, (row) => owner(row)?.id !== someone.id);
  });

  it('applies run-status operators to action cells', async () => {
    const cell = (row: Row) => leads.cell(row, 'enrich');
    await leads.expectRule('enrich', 'hasError', undefined, (row) => cell(row)?.status === 'failed');
    await leads.expectRule('enrich', 'hasNoError', undefined, (row) => cell(row)?.status !== 'failed');
    await leads.expectRule('enrich', 'hasNotRun', undefined, (row) =>
      [undefined, 'queued', 'waiting', 'stopped'].includes(cell(row)?.status ?? undefined),
    );
    await leads.expectRule('enrich', 'runConditionNotMet', undefined, (row) => cell(row)?.status === 'skipped');
    await leads.expectRule('enrich', 'isFound', undefined, (row) => cell(row)?.value !== undefined && cell(row)?.value !== null);
    await leads.expectRule('enrich', 'isNotFound', undefined, (row) => cell(row)?.value === undefined || cell(row)?.value === null);
    await leads.expectRule('enrich', 'contains', 'SOFTWARE', (row) => lower(cell(row)?.value ?? '').includes('software'));
    const failed = leads.rows.map(cell).filter((c) => c?.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const c of failed) expect(c!.errorMessage).toBeTruthy();
    const statuses = new Set(leads.rows.map((row) => cell(row)?.status));
    for (const status of ['success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual'])
      expect(statuses).toContain(status);
  });

  it('applies text operators to the webhook column as JSON text', async () => {
    const signups = await FilterOracle.of(emu, 'Signups');
    await signups.expectRule('payload', 'contains', '"source":"newsletter"', (row) =>
      lower(signups.value(row, 'payload')).includes('"source":"newsletter"'),
    );
    const notRun = await queryRows(emu, signups.info.table.id, { rules: [signups.rule('payload', 'hasNotRun')] });
    expect(notRun).toHaveLength(signups.rows.length);
  });
});

describe('run-status operators on a column that runs an AI, whatever its type', () => {
  let dir: string;
  let emu: RunningEmulator;
  it.beforeAll(async ({ openForFile }) => {
    // The demo seed has no such column; a state file can describe one (a text column filled by an AI prompt).
    const harness = await openForFile(emulatorOptions({ seed: 'empty' }));
    dir = harness.dir;
    const file = join(dir, 'state.json');
    const row = (id: string, cell: Record<string, unknown>): SavedRow => ({
      id,
      createdAt: '2025-05-01T00:00:00.000Z',
      updatedAt: '2025-05-01T00:00:00.000Z',
      createdByUserId: null,
      cells: { fld_summary: cell, fld_plain: { value: id } },
    });
    await writeFormatOneState(file, {
      key: 'tds_test_key',
      workspace: 'AI',
      tables: [
        {
          id: 'tbl_ai',
          name: 'Summaries',
          fields: [
            { ...field('fld_summary', 'summary', 'Summary', 'text'), runsAction: true },
            field('fld_plain', 'plain', 'Plain', 'text'),
          ],
          rows: [
            row('row_a', { value: 'A short summary', status: 'success' }),
            row('row_b', { status: 'failed', errorMessage: 'The model timed out' }),
            row('row_c', { status: 'skipped' }),
            row('row_d', { status: 'queued' }),
          ],
        },
      ],
    });
    emu = (await openForFile(emulatorOptions({ dataFile: file }))).emu;
  });

  const matching = async (fieldId: string, operator: string) => {
    const reply = await post(emu, '/tables/tbl_ai/rows/query', { filters: { rules: [{ fieldId, operator }] } });
    return reply.status === 200 ? reply.body.rows.map((r: Row) => r.id) : reply.body.message;
  };

  it('accepts hasError, hasNoError, hasNotRun and runConditionNotMet on the AI text column', async () => {
    expect(await matching('fld_summary', 'hasError')).toEqual(['row_b']);
    expect(await matching('fld_summary', 'hasNoError')).toEqual(['row_a', 'row_c', 'row_d']);
    expect(await matching('fld_summary', 'hasNotRun')).toEqual(['row_d']);
    expect(await matching('fld_summary', 'runConditionNotMet')).toEqual(['row_c']);
  });

  it('refuses them on a plain text column, listing the accepted operators', async () => {
    expect(await matching('fld_plain', 'hasError')).toContain(`accepted: ${acceptedOperators('text').join(' ')}`);
  });
});

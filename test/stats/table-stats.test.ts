import { describe, expect } from 'vitest';
import type { TableStats } from '../../src/stats/stats-report.js';
import { FIXTURE_NAME, FIXTURE_ROWS, makeFixture, type Fixture } from './fixture.js';
import { EXPECTED_COLUMNS, EXPECTED_PER_DAY, expectedErrors } from './fixture-expected.js';
import { terminalEnv } from '../helpers/hermetic-env.js';
import { makeTable } from '../helpers/admin-tables.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds stats` computes exact figures: a fixture table whose counts are known by construction, synced
// by the command itself (its first sync), then read back as JSON.

let harness: Harness;
let fixture: Fixture;
let stats: TableStats;
let firstRun: string;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  fixture = await makeFixture(harness);
  const result = await harness.tds(['stats', FIXTURE_NAME, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  stats = JSON.parse(result.stdout) as TableStats;
  firstRun = result.stderr;
});

describe('tds stats: the figures of a table', () => {
  it('syncs the table first: a table not mirrored yet gets its first (full) sync, later ones are incremental', async () => {
    expect(firstRun).toMatch(/stats_fixture\s+full\s.*\s15 inserted/);
    const again = await harness.tds(['stats', FIXTURE_NAME, '--format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/stats_fixture\s+incremental/);
  });

  it('table figures: rows, columns, creation range, rows per day, last sync', () => {
    expect(stats.table).toEqual({
      id: fixture.tableId,
      name: FIXTURE_NAME,
      workspace: 'Sales',
      mirrorTable: 'stats_fixture',
      rows: FIXTURE_ROWS,
      columns: EXPECTED_COLUMNS.length,
      firstCreatedAt: '2025-05-01T08:00:00.000Z',
      lastCreatedAt: '2025-05-04T12:00:00.000Z',
      perDay: EXPECTED_PER_DAY,
      lastSync: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      verifiedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      // a one-shot sync records no bound: never stale
      maxStale: null,
      stale: false,
      staleFor: null,
      lake: null,
    });
  });

  it('per field: filled, fill, distinct, top values by label and by item, range and mean, cut cells, run states', () => {
    const withoutErrors = stats.columns.map(({ errors, causes, ...column }) => ({
      ...column,
      errors: errors === null ? null : 'listed',
      causes,
    }));
    expect(withoutErrors).toEqual(
      EXPECTED_COLUMNS.map((column) =>
        column.states ? { ...column, errors: 'listed', causes: 3, mean: null } : { ...column, mean: column.mean },
      ),
    );
  });

  it('failure causes: messages that differ in a domain are one cause, most frequent first, with an example and row IDs', () => {
    const enrich = stats.columns.find((column) => column.key === 'Enrich')!;
    expect(enrich.errors).toEqual(expectedErrors(fixture.ids));
    const failed = enrich.errors!.reduce((sum, cause) => sum + cause.count, 0);
    expect(failed).toBe(enrich.states!.failed);
  });

  it('--columns limits the fields (by key, label or name, in the order given); --top the values', async () => {
    const result = await harness.tds([
      'stats',
      FIXTURE_NAME,
      '--no-sync',
      '--format',
      'json',
      '--columns',
      'Stage,Email (2),Amount',
      '--top',
      '2',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const picked = JSON.parse(result.stdout) as TableStats;
    expect(picked.columns.map((column) => column.key)).toEqual(['Stage', 'Email (2)', 'Amount']);
    expect(picked.columns.map((column) => column.top)).toEqual([
      [
        { value: 'New', count: 4 },
        { value: 'Won', count: 2 },
      ],
      [{ value: 'same', count: 6 }],
      [
        { value: 2, count: 2 },
        { value: -4, count: 1 },
      ],
    ]);
    expect(picked.table.columns).toBe(EXPECTED_COLUMNS.length);
    const none = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--format', 'json', '--columns', 'Stage', '--top', '0']);
    expect((JSON.parse(none.stdout) as TableStats).columns[0]!.top).toEqual([]);
  });

  it('a table without rows: zeros and nulls, no days', async () => {
    const created = await makeTable(harness, 'Empty', [
      { label: 'Amount', type: 'number' },
      { label: 'Run', type: 'action' },
    ]);
    const result = await harness.tds(['stats', created.id, '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const empty = JSON.parse(result.stdout) as TableStats;
    expect(empty.table).toMatchObject({ rows: 0, columns: 2, firstCreatedAt: null, lastCreatedAt: null, perDay: [] });
    expect(empty.columns[0]).toEqual({
      key: 'Amount',
      label: 'Amount',
      type: 'number',
      filled: 0,
      fill: 0,
      distinct: 0,
      top: [],
      min: null,
      max: null,
      mean: null,
      truncated: 0,
      states: null,
      errors: null,
      causes: null,
    });
    expect(empty.columns[1]).toMatchObject({ states: { success: 0, none: 0 }, errors: [], causes: 0 });
    const terminal = await harness.tds(['stats', created.id, '--no-sync'], { env: terminalEnv(100) });
    expect(terminal.stdout).toMatch(/^Amount +number +░+ +0% +0 +0 +empty$/m);
  });

  it('--columns naming a column the table lacks: exit 2, listing the columns', async () => {
    const unknown = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--columns', 'Nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no column "Nope"; the columns are: "Name"/);
  });
});

import { describe, expect } from 'vitest';
import type { TableStats } from '../../src/stats/stats-report.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds stats` as a user runs it (bin/tds.js): on the demo's Leads, the first run syncs the table; the
// output is JSON in a pipe and sections on a terminal, in colour unless NO_COLOR or --no-color.

let harness: Harness;
let leads: TableStats;
let firstRun: string;

it.beforeAll(async ({ openForFile }) => {
  // the seed's action states as seeded: the figures below are the seed's
  harness = await openForFile({ seededActions: 'pending' });
  const result = await harness.tds(['stats', 'Leads']);
  expect(result.code, result.stderr).toBe(0);
  leads = JSON.parse(result.stdout) as TableStats;
  firstRun = result.stderr;
});

const ANSI = /\u001b\[\d+m/;

describe('tds stats (the built CLI)', () => {
  it('syncs a table that is not mirrored yet, then gives its figures as JSON in a pipe', () => {
    expect(firstRun).toMatch(/^synced .*mirror\.duckdb\n {2}leads +full /m);
    expect(leads.table).toMatchObject({ name: 'Leads', workspace: 'Sales', mirrorTable: 'leads', rows: 250, columns: 17 });
    const enrich = leads.columns.find((column) => column.key === 'Enrich')!;
    expect(enrich.errors![0]).toMatchObject({ cause: 'Domain <domain> could not be resolved', count: enrich.states!.failed });
    expect(enrich.errors![0]!.example).toMatch(/^Domain [a-z-]+\.example could not be resolved$/);
    expect(leads.columns.map((column) => column.key)).toContain('Email (2)');
  });

  it('draws sections in colour on a terminal; NO_COLOR and --no-color turn colour off', async () => {
    const coloured = await harness.tds(['stats', 'Leads', '--no-sync'], {
      env: { TDS_FORCE_TTY: '1', NO_COLOR: undefined, COLUMNS: '100' },
    });
    expect(coloured.code, coloured.stderr).toBe(0);
    expect(coloured.stdout).toMatch(ANSI);
    expect(coloured.stdout).toContain('Failure causes: Enrich (1 cause)');
    const noColor = await harness.tds(['stats', 'Leads', '--no-sync'], { env: { TDS_FORCE_TTY: '1', NO_COLOR: '1', COLUMNS: '100' } });
    expect(noColor.stdout).not.toMatch(ANSI);
    // the same sections; with colour or without, each run state has a character of its own
    expect(noColor.stdout.split('\n')).toHaveLength(coloured.stdout.split('\n').length);
    expect(coloured.stdout.replace(ANSI_ALL, '')).toContain('█ success 61  ▓ failed 21  ░ skipped 21  × stopped 21');
    expect(noColor.stdout).toContain('█ success 61  ▓ failed 21  ░ skipped 21  × stopped 21');
    const flag = await harness.tds(['--no-color', 'stats', 'Leads', '--no-sync'], { env: { TDS_FORCE_TTY: '1', NO_COLOR: undefined } });
    expect(flag.stdout).not.toMatch(ANSI);
  });
});

const ANSI_ALL = /\u001b\[\d+m/g;

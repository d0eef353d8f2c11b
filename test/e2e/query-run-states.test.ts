import { describe, expect } from 'vitest';
import type { Row, Table } from '../../src/service/index.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { allRows, parseNdjson, schemaOf, tableNamed } from './rows-support.js';

// `tds query --where 'Enrich.status = STATE'`: the run state by the key exports give it. The rows are
// those of the service whose Enrich cell is in that state; where the service has an operator that
// covers the state (failed: hasError) it is sent, and the state is tested here on what it returns.

let harness: Harness;
let leads: Table;
let rows: Row[];
let enrichId: string;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  leads = await tableNamed(harness, 'Leads');
  enrichId = (await schemaOf(harness, leads.id)).find((field) => field.label === 'Enrich')!.id;
  rows = await allRows(harness, leads.id);
});

const idsIn = (...states: Array<string | null>): string[] =>
  rows
    .filter((row) => states.includes(row.cells[enrichId]?.status ?? null))
    .map((row) => row.id)
    .sort();

async function query(...where: string[]): Promise<{ ids: string[]; stderr: string; statuses: unknown[] }> {
  const args = where.flatMap((text) => ['--where', text]);
  const result = await harness.tds(['query', 'Leads', ...args, '--format', 'ndjson', '--status-columns']);
  expect(result.code, result.stderr).toBe(0);
  const records = parseNdjson(result.stdout);
  return {
    ids: records.map((record) => String(record._id)).sort(),
    stderr: result.stderr,
    statuses: records.map((record) => record['Enrich.status']),
  };
}

describe('tds query: COL.status', () => {
  it('= failed: the service narrows with hasError, the state is tested here; the cost is said', async () => {
    const expected = idsIn('failed');
    expect(expected.length).toBeGreaterThan(0);
    const { ids, stderr, statuses } = await query('Enrich.status = failed');
    expect(ids).toEqual(expected);
    expect(new Set(statuses)).toEqual(new Set(['failed']));
    expect(stderr).toMatch(
      new RegExp(
        `Enrich.status = failed was tested here, on the \\d+ rows the service returned \\(1 request\\): ${expected.length} written`,
      ),
    );
  });

  it('in [queued, running, success]: no operator covers them, every row is read and tested here', async () => {
    const expected = idsIn('queued', 'running', 'success');
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(rows.length);
    const { ids, stderr } = await query('Enrich.status in [queued, running, success]');
    expect(ids).toEqual(expected);
    expect(stderr).toContain(`on the ${rows.length} rows the service returned`);
  });

  it('beside a service filter, and -n counting the rows written', async () => {
    const { ids } = await query('Enrich.status != failed', 'Enrich.status notIn [success] and Name notNull');
    expect(ids).toEqual(
      rows
        .filter((row) => !['failed', 'success'].includes(row.cells[enrichId]?.status ?? ''))
        .map((row) => row.id)
        .sort(),
    );
    const limited = await harness.tds(['query', 'Leads', '--where', 'Enrich.status = success', '-n', '2', '--format', 'ndjson']);
    expect(parseNdjson(limited.stdout)).toHaveLength(2);
  });

  it('--explain: the body the service gets, and what is tested here', async () => {
    const explained = await harness.tds(['query', 'Leads', '--where', 'Enrich.status = failed', '--explain']);
    expect(JSON.parse(explained.stdout)).toEqual({
      limit: 100,
      filters: { combinator: 'and', rules: [{ fieldId: enrichId, operator: 'hasError' }] },
    });
    expect(explained.stderr).toContain('tested here, on each row the service returns: Enrich.status = failed (the service narrows');
    const here = await harness.tds(['query', 'Leads', '--where', 'Enrich.status = running', '--explain']);
    expect(JSON.parse(here.stdout)).toEqual({ limit: 100 });
    expect(here.stderr).toContain('Enrich.status = running (no service operator covers it');
  });

  it('the column compared with a run state gets a hint; a state joined with or to a service test is refused', async () => {
    const hinted = await harness.tds(['query', 'Leads', '--where', 'Enrich = failed', '--format', 'ndjson']);
    expect(hinted.code).toBe(0);
    expect(hinted.stderr).toContain("hint: Enrich = failed compares the cell's value; for its run state write Enrich.status = failed");
    const mixed = await harness.tds(['query', 'Leads', '--where', 'Enrich.status = failed or Name contains a']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('cannot be joined with or to a test of the service');
  });
});

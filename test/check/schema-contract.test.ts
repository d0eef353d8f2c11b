import { describe, expect } from 'vitest';
import type { CheckResult } from '../../src/check/check-result.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { FIXTURE_NAME, makeFixture, writeChecks, type Fixture } from './fixture.js';

// The schema contract under each drift the service's schema can take (the emulator's field routes):
// a field added, removed, relabelled, retyped; on_drift decides fail or warn.

let harness: Harness;
let fixture: Fixture;

const CONTRACT = (onDrift: string): string =>
  [
    'tables:',
    `  ${FIXTURE_NAME}:`,
    '    schema:',
    '      fields: {Email: email, Stage: select, Score: number, Enrich: action}',
    `      on_drift: ${onDrift}`,
    '    checks:',
    '      - fill: {column: Score, min: 0}',
  ].join('\n');

async function contract(onDrift = 'fail'): Promise<{ code: number | null; results: CheckResult[] }> {
  const run = await harness.tds(['check', await writeChecks(harness, CONTRACT(onDrift)), '--format', 'json']);
  return { code: run.code, results: JSON.parse(run.stdout || '[]') as CheckResult[] };
}

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  fixture = await makeFixture(harness);
});

describe('tds check: the schema contract', () => {
  it('the table as declared: pass', async () => {
    const run = await contract();
    expect(run.code).toBe(0);
    expect(run.results[0]).toMatchObject({ check: 'schema', status: 'pass', observed: 0, message: null });
  });

  it('a field added: fail (or warn with on_drift: warn)', async () => {
    const added = await harness.admin<{ field: { id: string } }>('POST', `/tables/${fixture.tableId}/fields`, {
      label: 'Notes',
      type: 'text',
    });
    const run = await contract();
    expect(run.code).toBe(9);
    expect(run.results[0]).toMatchObject({ status: 'fail', observed: 1, message: 'added "Notes" (text)' });
    const warned = await contract('warn');
    expect(warned.code).toBe(0);
    expect(warned.results[0]).toMatchObject({ status: 'warn', message: 'added "Notes" (text)' });
    await harness.admin('DELETE', `/tables/${fixture.tableId}/fields/${added.field.id}`);
    expect((await contract()).results[0]!.status).toBe('pass');
  });

  it('a field relabelled: told from a removed one by its field ID, matched in the last run', async () => {
    await harness.admin('PATCH', `/tables/${fixture.tableId}/fields/${fixture.fieldIds.Email}`, { label: 'E-mail' });
    const run = await contract();
    expect(run.results[0]).toMatchObject({ status: 'fail', message: 'relabelled "Email" → "E-mail"' });
    await harness.admin('PATCH', `/tables/${fixture.tableId}/fields/${fixture.fieldIds.Email}`, { label: 'Email' });
    expect((await contract()).results[0]!.status).toBe('pass');
  });

  it('a field retyped', async () => {
    await harness.admin('PATCH', `/tables/${fixture.tableId}/fields/${fixture.fieldIds.Score}`, { type: 'text' });
    const run = await contract();
    expect(run.results[0]).toMatchObject({ status: 'fail', message: 'retyped "Score": number → text' });
  });

  it('a field removed: the contract fails, and a check of its column is a fail too (not an error)', async () => {
    await harness.admin('DELETE', `/tables/${fixture.tableId}/fields/${fixture.fieldIds.Score}`);
    const run = await contract();
    expect(run.code).toBe(9);
    expect(run.results[0]).toMatchObject({ status: 'fail', message: 'removed "Score"' });
    expect(run.results[1]).toMatchObject({ check: 'fill Score', status: 'fail', message: expect.stringMatching(/no column "Score"/) });
  });
});

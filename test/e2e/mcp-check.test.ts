import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { closeMcp, connectMcpWithTables, type McpClient } from './mcp-support.js';

// MCP's check_tables: the results of `tds check` on the checks file where the server runs, read-only
// (no run recorded), the same as the command line's over the same mirror.

let harness: Harness;
let mcp: McpClient;

const CHECKS = `tables:
  Leads:
    checks:
      - rows: {min: 1}
      - rows: {max: 1}
      - fill: {column: Nope, min: 1}
  Signups:
    checks:
      - rows: {min: 1}
`;

const runs = async (): Promise<number> => {
  const counted = await harness.tds(['sql', 'SELECT count(DISTINCT run) AS n FROM _tds_checks', '--format', 'ndjson']);
  return (JSON.parse(counted.stdout) as { n: number }).n;
};

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  ({ mcp } = await connectMcpWithTables(harness, { sync: ['Leads'] }));
  await writeFile(join(harness.dir, 'tds-checks.yaml'), CHECKS);
});
afterAll(() => closeMcp(mcp));

describe('check_tables', () => {
  it('the results of tds check over the same mirror; read-only: no run is recorded', async () => {
    const cli = await harness.tds(['check', '--no-sync', '--format', 'json']);
    expect(cli.code, cli.stderr).toBe(9);
    expect(await runs()).toBe(1);
    const result = await mcp.call('check_tables', {});
    expect(result.isError, result.text).toBe(false);
    const structured = result.structured as { results: unknown[]; summary: Record<string, number>; changes: unknown[] };
    expect(structured.results).toEqual(JSON.parse(cli.stdout));
    expect(structured.summary).toEqual({ pass: 1, warn: 0, fail: 1, error: 2 });
    expect(structured.changes).toEqual([]);
    expect(await runs()).toBe(1);
  });

  it('tables: only the checks of those tables', async () => {
    const result = await mcp.call('check_tables', { tables: ['Signups'] });
    const structured = result.structured as { results: Array<{ table: string; status: string; message: string }> };
    expect(structured.results).toEqual([
      expect.objectContaining({ table: 'Signups', status: 'error', message: expect.stringMatching(/not in the mirror/) }),
    ]);
  });
});

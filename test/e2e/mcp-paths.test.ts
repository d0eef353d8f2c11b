import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { closeMcp, connectMcp, type McpClient } from './mcp-support.js';

// An MCP client starts `tds mcp` in a working folder of its own, not the mirror's: the server makes the
// mirror and the checks file absolute when it starts (flag, environment, config, then the working
// folder), logs them, and a file it cannot find is named by its absolute path with the ways to set it.

let harness: Harness;
const opened: McpClient[] = [];
const open = async (...args: Parameters<typeof connectMcp>): Promise<McpClient> => {
  const mcp = await connectMcp(...args);
  opened.push(mcp);
  return mcp;
};

const CHECKS = `tables:
  Leads:
    checks:
      - rows: {min: 1}
`;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  const synced = await harness.tds(['sync', 'Leads']);
  expect(synced.code, synced.stderr).toBe(0);
});
afterAll(async () => {
  for (const mcp of opened.splice(0)) await closeMcp(mcp);
});

describe('tds mcp started in a folder that is not the mirror’s', () => {
  it('with nothing set: logs the absolute paths it uses; query_sql and check_tables name them and how to set them', async ({ tmp }) => {
    const mcp = await open(harness, { cwd: tmp, env: { TDS_DB: undefined } });
    await expect.poll(() => mcp.stderr()).toContain('checks file');
    expect(mcp.stderr()).toContain(`mirror ${join(tmp, 'tds.duckdb')} (from the default`);
    expect(mcp.stderr()).toContain(`checks file ${join(tmp, 'tds-checks.yaml')} (from the default`);

    const query = await mcp.call('query_sql', { sql: 'SELECT 1 AS one' });
    expect(query.isError).toBe(true);
    expect(query.text).toContain(`there is no mirror at ${join(tmp, 'tds.duckdb')}`);
    for (const way of ['--db FILE', 'TDS_DB=FILE', '`tds config set db FILE`']) expect(query.text).toContain(way);

    const check = await mcp.call('check_tables', {});
    expect(check.isError).toBe(true);
    expect(check.text).toContain(`there is no checks file at ${join(tmp, 'tds-checks.yaml')}`);
    for (const way of ['--checks FILE', 'TDS_CHECKS=FILE', '`tds config set checks FILE`']) expect(check.text).toContain(way);
  });

  it('TDS_DB and --checks as absolute paths: the mirror is read and the checks run whatever the working folder; check_tables takes a file or the YAML itself', async ({
    tmp,
  }) => {
    const checks = await harness.file('mine.yaml', CHECKS);
    const mcp = await open(harness, { cwd: tmp, args: ['--checks', checks] });
    await expect.poll(() => mcp.stderr()).toContain('checks file');
    expect(mcp.stderr()).toContain(`mirror ${harness.db} (from TDS_DB)`);
    expect(mcp.stderr()).toContain(`checks file ${checks} (from --checks)`);

    const query = await mcp.call('query_sql', { sql: 'SELECT count(*) AS n FROM leads' });
    expect(query.isError, query.text).toBe(false);
    const check = await mcp.call('check_tables', {});
    expect(check.isError, check.text).toBe(false);
    expect((check.structured as { summary: Record<string, number> }).summary).toMatchObject({ pass: 1 });

    // a call's own checks file, or the YAML itself
    const other = join(tmp, 'other.yaml');
    await writeFile(other, CHECKS.replace('{min: 1}', '{max: 0}'));
    const byFile = await mcp.call('check_tables', { file: other });
    expect(byFile.isError, byFile.text).toBe(false);
    expect((byFile.structured as { summary: Record<string, number> }).summary).toMatchObject({ fail: 1 });

    const inline = await mcp.call('check_tables', { yaml: CHECKS });
    expect(inline.isError, inline.text).toBe(false);
    expect((inline.structured as { summary: Record<string, number> }).summary).toMatchObject({ pass: 1 });

    const broken = await mcp.call('check_tables', { yaml: 'tables:\n  Leads:\n    checks:\n      - rowz: {min: 1}\n' });
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(/yaml:4:/);

    const missing = await mcp.call('check_tables', { file: join(tmp, 'nope.yaml') });
    expect(missing.text).toContain(`there is no checks file at ${join(tmp, 'nope.yaml')} (from the file argument)`);
  });
});

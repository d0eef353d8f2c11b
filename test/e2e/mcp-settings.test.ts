import { afterAll, describe, expect } from 'vitest';
import { runTds } from '../helpers/cli.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { connectMcp, type McpClient } from './mcp-support.js';

// tds mcp without an API key: it starts (the mirror is readable without one), and each tool that needs
// the service says what to set, as the command line does. stdin is the protocol's: no key from it.

let harness: Harness;
let mcp: McpClient;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  mcp = await connectMcp(harness, { env: { TDS_API_KEY: undefined } });
});
afterAll(() => mcp?.close());

describe('tds mcp without an API key', () => {
  it("list_tables lists the mirror's tables and says why the service's are missing", async () => {
    const result = await mcp.call('list_tables');
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ tables: [], table_count: 0 });
    expect(result.structured!.notes).toEqual([
      "only the mirror's tables are listed: no API key is set",
      `there is no mirror at ${harness.db} yet: sync_tables makes it`,
    ]);
  });

  it('the tools that need the service fail with the message and hint of the command line', async () => {
    const cli = await harness.tds(['tables'], { env: { TDS_API_KEY: undefined } });
    expect(cli.code).toBe(3);
    for (const [tool, args] of [
      ['search_rows', { table: 'Leads' }],
      ['sync_tables', { tables: ['Leads'] }],
    ] as const) {
      const result = await mcp.call(tool, args);
      expect(result).toMatchObject({ isError: true, text: cli.stderr.trimEnd() });
    }
    const described = await mcp.call('describe_table', { table: 'Leads' });
    expect(described.text).toMatch(/^tds: no table "Leads" in the mirror/);
  });
});

describe('tds mcp and stdin', () => {
  it('refuses --api-key-file - (stdin carries the protocol)', async () => {
    const result = await runTds(['mcp', '--api-key-file', '-'], { env: { TDS_CONFIG_DIR: harness.dir } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tds: tds mcp reads protocol messages on stdin: --api-key-file - cannot give it the key\nhint: /);
  });
});

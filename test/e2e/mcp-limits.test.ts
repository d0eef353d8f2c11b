import { readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { closeMcp, serviceRows, connectMcpWithTables, tableIn, type McpClient } from './mcp-support.js';

// Issue 29 through `tds mcp` (items 5, 6, 7, 10 and 12): a moment that cannot be is a bad argument,
// every result and log line keeps within the caps whatever the arguments, and push_records calls
// into one table take turns and leave no file but their journal, all private.

let harness: Harness;
let mcp: McpClient;
let inbox: Table;
const folder = (): string => join(harness.dir, 'config', 'mcp-push');

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  let tables: Table[];
  ({ mcp, tables } = await connectMcpWithTables(harness, { args: ['--allow-push', '--max-bytes', '50000'], sync: ['Leads'] }));
  inbox = tableIn(tables, 'Inbox', 'Marketing');
  const saved = await harness.tds(['config', 'set', 'webhook.inbox'], { input: `${harness.emu.webhooks[inbox.id]!}\n` });
  expect(saved.code, saved.stderr).toBe(0);
});
afterAll(() => closeMcp(mcp));

describe('diff_table: a moment that cannot be is a bad argument (items 5 and 6)', () => {
  it.each([
    ['99999999999d', /^tds: --since "99999999999d" is longer than tds takes\nhint: a duration goes from 0s up to 36500d \(100 years\)/],
    ['2026-02-30', /^tds: --since "2026-02-30" is not a date and time of the calendar\nhint: /],
  ])('since %s', async (since, message) => {
    const result = await mcp.call('diff_table', { table: 'leads', since });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(message);
    expect(result.text).not.toMatch(/bug in tds|RangeError/);
  });
});

describe('caps (item 10)', () => {
  it('column names count toward --max-bytes: a column named by a 99,000-character literal is refused, saying why', async () => {
    const result = await mcp.call('query_sql', { sql: `SELECT '${'x'.repeat(99_000)}'` });
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(50_000);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^tds: the result's column names take 99,\d{3} bytes: with them not even a result without rows fits in the server's --max-bytes 50,000\nhint: name long columns with AS/,
    );
  });

  it('an argument of 3 MB comes back cut, in the result and in the log', async () => {
    const name = `${'n'.repeat(3_000_000)}END`;
    const logBefore = mcp.stderr().length;
    const result = await mcp.call('describe_table', { table: name });
    expect(result.isError).toBe(true);
    expect(result.text.length).toBeLessThan(3_000);
    expect(result.text).toMatch(/^tds: .*n…\[2,99\d,\d{3} characters cut\]…n+END/);
    const log = mcp.stderr().slice(logBefore);
    expect(log).toMatch(/describe_table failed: .*characters cut/);
    expect(log.length).toBeLessThan(3_000);
  });
});

describe('push_records (items 7 and 12)', () => {
  const records = [{ email: 'twice@limits.example' }, { email: 'once@limits.example' }];
  const push = (more: Record<string, unknown> = {}) =>
    mcp.call('push_records', { webhook: '@inbox', table: 'Inbox', key: 'email=Email', records, ...more });

  it('two identical calls at once take turns: no failure, each record sent once', async () => {
    const [first, second] = await Promise.all([push(), push()]);
    for (const result of [first, second]) expect(result.isError, result.text).toBe(false);
    const sent = [first, second].map((result) => (result.structured!.records as { sent: number }).sent).sort();
    expect(sent).toEqual([0, 2]);
    const waited = [first, second].flatMap((result) => result.structured!.notes as string[]);
    expect(waited).toContainEqual(
      expect.stringMatching(/another push_records call into table "Inbox" \(.*\) is under way; waiting for it to end/),
    );
    harness.emu.flushIntake();
    const emails = (await serviceRows(harness.emu, inbox.id)).map((row) => row.Email).filter((email) => email?.endsWith('@limits.example'));
    expect(emails.sort()).toEqual(['once@limits.example', 'twice@limits.example']);
  });

  it('leaves only its journal, 0600, and a journal untouched for 7 days goes with the next call', async () => {
    const rejected = await push({ records: [{ email: 'third@limits.example' }, { mail: 'keyless@limits.example' }] });
    expect(rejected.text).toContain('rejected: record 2: no key');
    const old = join(folder(), 'aaaaaaaaaaaaaaaaaaaaaaaa.tds-journal');
    await writeFile(old, '{}\n', { mode: 0o600 });
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    await utimes(old, eightDaysAgo, eightDaysAgo);
    expect((await push()).isError).toBe(false);
    const names = await readdir(folder());
    expect(names.filter((name) => !name.endsWith('.tds-journal'))).toEqual([]);
    expect(names).not.toContain('aaaaaaaaaaaaaaaaaaaaaaaa.tds-journal');
    expect(names).toHaveLength(2);
    for (const name of names) expect(((await stat(join(folder(), name))).mode & 0o777).toString(8), name).toBe('600');
  });
});

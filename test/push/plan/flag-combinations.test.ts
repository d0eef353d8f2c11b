import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/run-in-process.js';

// Flags of `tds push` that need others (checkCombinations in src/commands/push-action.ts): each refused
// combination exits 2 saying what to add, before the input is read or anything is sent. Nothing listens
// on port 9: a run that got as far as sending would exit 4 or 6, not 2.

const WEBHOOK = 'http://127.0.0.1:9/v1/webhook/wh_flag_table_0000';

// in a folder of its own: the relative -o and --db paths must not touch the repository
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-push-flags-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const push = (flags: string[]) => runInProcess(['push', WEBHOOK, 'no-such-input.ndjson', ...flags, '--verbose'], { cwd: dir });

describe('tds push: flags that need others', () => {
  it.each([
    [['--resend-uncertain'], /^tds: --resend-uncertain goes with --resume$/m],
    [['--accept-uncertain', '2'], /^tds: --accept-uncertain goes with --resume$/m],
    [['--nest', ''], /^tds: --nest needs a separator, such as \.$/m],
    [['--wait', 'later', '--table', 'Inbox'], /^tds: --wait later: wait until "visible" \(the default\) or "settled"$/m],
    [['--key', '=Email', '--table', 'Inbox'], /^tds: --key "=Email": give the input key, and optionally the column it fills/m],
    [['--key', 'email=', '--table', 'Inbox'], /^tds: --key "email=": give the input key/m],
    [['--wait'], /^tds: --wait needs --table TABLE \(the table the webhook feeds\)$/m],
    [['--key', 'email'], /^tds: --key needs --table TABLE/m],
    [['--table', 'Inbox'], /^tds: --table is used by --wait and --key; add one of them$/m],
    [['--skip-existing'], /^tds: --skip-existing needs --key FIELD$/m],
    [['--on-duplicate', 'error'], /^tds: --on-duplicate needs --key FIELD$/m],
    [['--wait', 'settled', '--table', 'Inbox'], /^tds: --wait settled needs --key FIELD$/m],
    [['--key', 'email', '--table', 'Inbox', '--db', 'mirror.duckdb'], /^tds: --db is used by --skip-existing/m],
    [
      ['--key', 'email', '--table', 'Inbox', '-o', 'out.csv'],
      /^tds: -o FILE writes the pushed rows once they have settled: add --wait settled/m,
    ],
    [['--format', 'csv'], /^tds: --format is for -o FILE$/m],
    [['--header', 'name'], /^tds: --header is for -o FILE$/m],
    [['--wait-timeout', '5'], /^tds: --wait-timeout goes with --wait$/m],
  ])('%j exits 2 before reading or sending anything', async (flags, message) => {
    const result = await push(flags);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/no-such-input|^(HEAD|POST|GET) /m);
  });

  it.each([
    [['--resume', '--resend-uncertain']],
    [['--key', 'email', '--table', 'Inbox', '--skip-existing', '--db', 'mirror.duckdb']],
    [['--key', 'email', '--table', 'Inbox', '--wait', 'settled', '-o', 'out.csv', '--format', 'csv', '--header', 'name']],
    [['--wait', '--table', 'Inbox', '--wait-timeout', '5']],
  ])('%j passes these checks: the run goes on to read its input', async (flags) => {
    const result = await push(flags);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot read no-such-input\.ndjson: no such file/);
  });
});

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, vi } from 'vitest';
import { api } from '../push/helpers/emulator.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Issue 20, item 10: the files that hold the organization's rows are readable by their owner only
// (0600, as the config file): the mirror, push journals, export checkpoints and Parquet staging files.
// What the user asks for (-o FILE) keeps the user's umask: 027 here, so 0640.

let harness: Harness;
let umaskBefore: number;

it.beforeAll(async ({ openForFile }) => {
  umaskBefore = process.umask(0o027); // tds inherits it
  harness = await openForFile();
});
afterAll(async () => {
  process.umask(umaskBefore);
});

const mode = async (path: string): Promise<string> => ((await stat(path)).mode & 0o777).toString(8);

describe('private files are 0600', () => {
  it('the mirror tds sync makes', async () => {
    const synced = await harness.tds(['sync', 'Leads']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(await mode(harness.db)).toBe('600');
  });

  it('the journal of a push', async () => {
    const { tables } = (await api(harness.emu, '/tables')) as { tables: Array<{ id: string; name: string }> };
    const inbox = tables.find((table) => table.name === 'Inbox')!;
    const input = join(harness.dir, 'people.csv');
    await import('node:fs/promises').then(({ writeFile }) => writeFile(input, 'email\na@x.io\n'));
    const pushed = await harness.tds(['push', harness.emu.webhooks[inbox.id]!, input]);
    expect(pushed.code, pushed.stderr).toBe(0);
    // in the data folder's journals/, the user's alone too
    const folder = join(harness.dir, 'data', 'journals');
    const journal = (await readdir(folder)).find((name) => name.startsWith('people.csv.') && name.endsWith('.tds-journal'));
    expect(journal).toBeDefined();
    expect(await mode(join(folder, journal!))).toBe('600');
    expect(await mode(folder)).toBe('700');
  });

  it('the staging file of a Parquet export and its WAL while the export runs, and the checkpoint a Ctrl-C leaves', async ({ open }) => {
    // read requests: tables, schema, pages 1 and 2; page 3 gets no answer, so the export waits there
    const stalled = await open({ readFaults: 'stall@5' });
    try {
      const file = join(stalled.dir, 'leads.parquet');
      // a process: Ctrl-C is what leaves the checkpoint
      const run = stalled.spawn(['rows', 'Leads', '--page-size', '20', '-o', file]);
      const staged = ['leads.parquet.tds-staging.duckdb', 'leads.parquet.tds-staging.duckdb.wal'];
      try {
        await vi.waitFor(() => expect(stalled.emu.requestLog.some((entry) => entry.fault === 'stall')).toBe(true), {
          timeout: 20_000,
          interval: 20,
        });
        await vi.waitFor(async () => expect(await readdir(stalled.dir)).toEqual(expect.arrayContaining(staged)), {
          timeout: 20_000,
          interval: 20,
        });
        for (const name of staged) expect(`${name} ${await mode(join(stalled.dir, name))}`).toBe(`${name} 600`);
      } finally {
        run.child.kill('SIGINT');
      }
      expect(await run.exit).toBe(130);
      // kept for --resume
      for (const name of [...staged, 'leads.parquet.tds-checkpoint'])
        expect(`${name} ${await mode(join(stalled.dir, name))}`).toBe(`${name} 600`);
    } finally {
      await stalled.close();
    }
  });
});

describe('what the user asks for keeps the user’s umask', () => {
  it.each([
    ['tds rows -o FILE.parquet (staged privately)', ['rows', 'Leads', '-o', 'rows.parquet'], 'rows.parquet'],
    ['tds rows -o FILE.csv', ['rows', 'Leads', '-o', 'rows.csv'], 'rows.csv'],
    ['tds sql -o FILE.parquet', ['sql', 'SELECT * FROM leads', '-o', 'sql.parquet'], 'sql.parquet'],
    ['tds sql --write -o FILE.csv (the mirror open for writing)', ['sql', 'SELECT * FROM leads', '--write', '-o', 'sql.csv'], 'sql.csv'],
  ])('%s', async (_name, args, output) => {
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
    expect(await mode(join(harness.dir, output))).toBe('640');
  });
});

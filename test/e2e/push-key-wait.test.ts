import { access, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { expectSameRecords, journalOf, ndjson, people, tablePayloads } from '../push/helpers/emulator.js';
import { readParquet } from '../export/parquet-file.js';
import { columnValues, expectEachOnce, KEY_EMULATOR, keyTest, keyedPush } from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// --wait settled and -o (CSV in, enriched CSV out), and the journal kept per input and webhook.

const LEADS = 'email,name\ngrace@acme.io,Grace\nada@example.com,Ada\nGRACE@acme.io,Grace again\nlin@big.co,Lin\n';
const UNFINISHED = ['queued', 'waiting', 'running'];

describe('--wait settled -o FILE', () => {
  keyTest(
    'waits for the action columns, then writes the rows in input order with their statuses; a resumed run writes them again',
    async ({ pushHarness: harness }) => {
      const path = await harness.file('leads.csv', LEADS);
      const args = keyedPush(harness, path, '--wait', 'settled', '-o', 'enriched.csv');
      const result = await harness.tds(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/rows settled\s+3 of 3 \(3 visible\)/);
      expect(result.stderr).toMatch(/written\s+3 rows to enriched\.csv \(csv\)/);
      // no --skip-existing and nothing uncertain: the check that keys show, then the wait
      expect(result.stderr).toMatch(/key lookups\s+(\d+) row requests \(1 checking the keys show, \d+ waiting for rows to settle\)\n/);
      const rows = parse(await readFile(`${harness.dir}/enriched.csv`), { columns: true }) as Array<Record<string, string>>;
      expect(rows.map((row) => row.Email)).toEqual(['grace@acme.io', 'ada@example.com', 'lin@big.co']);
      expect(Object.keys(rows[0]!)).toEqual(
        expect.arrayContaining(['_id', '_createdAt', 'Email', 'Domain', 'Domain.status', 'Domain.error', 'Company', 'Company.status']),
      );
      for (const row of rows) {
        expect(UNFINISHED).not.toContain(row['Domain.status']);
        expect(UNFINISHED).not.toContain(row['Company.status']);
        expect(row['Domain.status']).not.toBe('');
      }
      const again = await harness.tds([...args.map((arg) => (arg === 'enriched.csv' ? 'again.ndjson' : arg)), '--resume']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/nothing to send: every batch of .*leads\.csv was dealt with before/);
      const records = (await readFile(`${harness.dir}/again.ndjson`, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.map((record) => record._id)).toEqual(rows.map((row) => row._id));
      // Parquet: the mirror's typed columns, in input order
      const parquetArgs = args.map((arg) => (arg === 'enriched.csv' ? 'enriched.parquet' : arg));
      const parquet = await harness.tds([...parquetArgs, '--resume']);
      expect(parquet.code, parquet.stderr).toBe(0);
      const file = await readParquet(`${harness.dir}/enriched.parquet`);
      expect(file.rows.map((row) => row._id)).toEqual(rows.map((row) => row._id));
      expect(file.columns).toEqual(
        expect.arrayContaining([
          { name: '_createdAt', type: 'TIMESTAMP WITH TIME ZONE' },
          { name: 'Payload', type: 'JSON' },
          { name: 'Domain.status', type: 'VARCHAR' },
          { name: '_truncated', type: 'VARCHAR[]' },
        ]),
      );
      expect(file.rows.map((row) => row['Domain.status'])).toEqual(rows.map((row) => row['Domain.status']));
    },
  );

  keyTest(
    'the same push by key run again sends nothing, and after a row is added sends only that row',
    async ({ pushHarness: harness }) => {
      const path = await harness.file('leads.csv', LEADS);
      const args = keyedPush(harness, path, '--skip-existing', '--wait', 'settled');
      const sent = async (): Promise<number> => {
        const result = await harness.tds([...args, '-o', 'enriched.csv', '--json']);
        expect(result.code, result.stderr).toBe(0);
        return (JSON.parse(result.stdout) as { records: { sent: number } }).records.sent;
      };
      expect(await sent()).toBe(3);
      expect(await sent()).toBe(0);
      await harness.file('leads.csv', `${LEADS}mae@new.org,Mae\n`);
      expect(await sent()).toBe(1);
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), [
        'grace@acme.io',
        'ada@example.com',
        'lin@big.co',
        'mae@new.org',
      ]);
      const rows = parse(await readFile(`${harness.dir}/enriched.csv`), { columns: true }) as Array<Record<string, string>>;
      expect(rows.map((row) => row.Email)).toEqual(['grace@acme.io', 'ada@example.com', 'lin@big.co', 'mae@new.org']);
    },
  );

  test('rows still running when --wait-timeout ends are written as they are, counted, and the exit is 7', async ({ openHarness }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, actionDelayMs: 600_000 });
    try {
      const path = await harness.file('leads.csv', LEADS);
      const args = keyedPush(harness, path, '--wait', 'settled', '--wait-timeout', '1');
      const result = await harness.tds([...args, '-o', 'enriched.ndjson', '--json']);
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toMatch(/3 of 3 rows had not settled after \d+ s \(0 not visible\); they are in enriched\.ndjson as they were/);
      expect(result.stderr).toMatch(/--resume to wait again \(nothing is sent twice\)/);
      const summary = JSON.parse(result.stdout) as {
        wait: { mode: string; settled: number; visible: number; running: Record<string, number> };
      };
      expect(summary.wait).toMatchObject({ mode: 'settled', settled: 0, visible: 3 });
      expect(summary.wait.running.Domain).toBe(3);
      const records = (await readFile(`${harness.dir}/enriched.ndjson`, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.map((record) => record.Email)).toEqual(['grace@acme.io', 'ada@example.com', 'lin@big.co']);
      for (const record of records) expect(UNFINISHED).toContain(record['Domain.status']);
    } finally {
      await harness.close();
    }
  });

  keyTest('an output that cannot be written stops the push before anything is sent', async ({ pushHarness: harness }) => {
    const path = await harness.file('leads.csv', LEADS);
    const args = keyedPush(harness, path, '--wait', 'settled', '-o', 'no/such/folder/out.csv');
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(2);
    expect(harness.emu.requestLog.filter((entry) => entry.bucket === 'webhook')).toEqual([]);
  });
});

describe('one journal per input and webhook', () => {
  keyTest('the same file pushed to two webhooks, each resumable on its own, without --journal', async ({ pushHarness: harness }) => {
    const path = await harness.file('people.ndjson', ndjson(people(20)));
    for (const hook of [harness.inbox.url, harness.signups.url]) {
      const result = await harness.tds(['push', hook, path]);
      expect(result.code, result.stderr).toBe(0);
    }
    const journals = (await readdir(join(harness.dir, 'data', 'journals'))).filter((name) => name.endsWith('.tds-journal'));
    expect(journals).toHaveLength(2);
    for (const hook of [harness.inbox.url, harness.signups.url]) {
      const resumed = await harness.tds(['push', hook, path, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/nothing to send/);
    }
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(20));
  });

  keyTest('an unknown webhook exits 4 before any journal is read', async ({ pushHarness: harness }) => {
    const path = await harness.file('people.ndjson', ndjson(people(5)));
    expect((await harness.tds(['push', harness.inbox.url, path])).code).toBe(0);
    const gone = harness.inbox.url.replace(/[^/]+$/, 'x'.repeat(43));
    const result = await harness.tds(['push', gone, path, '--resume']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).not.toMatch(/journal/);
  });

  test('a journal of the first release (FILE.tds-journal) still resumes', async ({ openHarness }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500@4' });
    try {
      const path = await harness.file('people.ndjson', ndjson(people(20)));
      const push = ['push', harness.inbox.url, path, '--batch-size', '5', '--concurrency', '1'];
      const first = await harness.tds([...push, '--journal', `${path}.tds-journal`]);
      expect(first.code, first.stderr).toBe(7);
      const resumed = await harness.tds([...push, '--resume', '--accept-uncertain']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/journal\s+.*people\.ndjson\.tds-journal\n/);
      expect(resumed.stderr).toContain(
        `using the journal of an earlier push beside the input, where earlier releases kept journals: ${path}.tds-journal`,
      );
      expect(await journalOf(path)).toBeUndefined();
      await access(`${path}.tds-journal`);
      expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(20));
    } finally {
      await harness.close();
    }
  });
});

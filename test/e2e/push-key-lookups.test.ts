import { describe, expect } from 'vitest';
import { ndjson, webhookPosts, type PushHarness } from '../push/helpers/emulator.js';
import { addRows, columnValues, expectEachOnce, KEY_EMULATOR, keyTest, rowRequests, webhookTable } from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// --skip-existing against a table that holds half the keys: the right lookup plan for the column's
// type, the keys the table holds never sent again, and cells the service cut never trusted.

const TIERS = Array.from({ length: 10 }, (_, i) => ({ label: `Tier ${i + 1}`, value: `t${i + 1}` }));

/** A table of 2,000 other rows (a full read would cost 20 pages), fed by a webhook that fills Code, Mail and Tier. */
async function keysTable(harness: PushHarness): Promise<Awaited<ReturnType<typeof webhookTable>>> {
  const table = await webhookTable(harness, 'Keys', [
    { label: 'Code', type: 'text', mapKey: 'code' },
    { label: 'Mail', type: 'email', mapKey: 'mail' },
    { label: 'Tier', type: 'select', mapKey: 'tier', options: TIERS },
  ]);
  await addRows(
    harness,
    table.id,
    Array.from({ length: 2000 }, (_, i) => ({ Code: `other-${i}`, Mail: `other${i}@elsewhere.org` })),
  );
  return table;
}

interface KeyCase {
  name: string;
  key: string;
  column: string;
  /** the plan --verbose names */
  plan: RegExp;
  /** input records, and the cells of the rows already in the table (half of them, written another way) */
  records: Array<Record<string, string>>;
  present: Array<Record<string, string>>;
  keys: string[];
}

const codes = Array.from({ length: 60 }, (_, i) => `code-${i + 1}`);
const mails = Array.from({ length: 60 }, (_, i) => `person${i + 1}@example.com`);
const CASES: KeyCase[] = [
  {
    name: 'a text key (`in` lists)',
    key: 'code',
    column: 'Code',
    plan: /60 keys looked up in 1 filter query \(`in` lists on "Code"\)/,
    records: codes.map((code) => ({ code: code.toUpperCase() })),
    present: codes.slice(0, 30).map((code) => ({ Code: code })),
    keys: codes,
  },
  {
    name: 'an email key (`=` rules)',
    key: 'mail=Mail',
    column: 'Mail',
    plan: /60 keys looked up in 1 filter query \(`=` rules on "Mail"\)/,
    records: mails.map((mail, i) => ({ mail: i % 2 ? mail.toUpperCase() : mail })),
    present: mails.filter((_, i) => i % 2 === 0).map((mail) => ({ Mail: mail })),
    keys: mails,
  },
  {
    name: 'a select key (option labels and values)',
    key: 'tier',
    column: 'Tier',
    plan: /10 keys looked up in 1 filter query \(`in` lists on "Tier"\)/,
    records: TIERS.map((tier) => ({ tier: tier.label })),
    present: TIERS.slice(0, 5).map((tier) => ({ Tier: tier.value })),
    keys: TIERS.map((tier) => tier.value),
  },
];

describe('--skip-existing with half the keys in the table', () => {
  for (const keyCase of CASES) {
    keyTest(`${keyCase.name}: the cheapest plan, only the missing records sent, each key once`, async ({ pushHarness: harness }) => {
      const table = await keysTable(harness);
      await addRows(harness, table.id, keyCase.present);
      const path = await harness.file('input.ndjson', ndjson(keyCase.records));
      const before = rowRequests(harness.emu);
      const args = ['push', table.url, path, '--key', keyCase.key, '--table', 'Keys', '--skip-existing'];
      const dry = await harness.tds([...args, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stderr).toMatch(keyCase.plan);
      const result = await harness.tds([...args, '-v', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(keyCase.plan);
      const summary = JSON.parse(result.stdout) as { records: { sent: number }; key: { existing: number } };
      expect(summary.key.existing).toBe(keyCase.present.length);
      expect(summary.records.sent).toBe(keyCase.records.length - keyCase.present.length);
      const sentObjects = webhookPosts(harness.emu).reduce((sum, entry) => sum + (entry.objects ?? 0), 0);
      expect(sentObjects).toBe(keyCase.records.length - keyCase.present.length);
      // one filter query (and one more after sending: the check that the keys sent show in the table), not the table's 21 pages
      const used = rowRequests(harness.emu);
      expect(used.queries - before.queries).toBe(2);
      expect(used.pages - before.pages).toBe(0);
      // a select cell holds an option's value, or the label the webhook was given
      const asValue = (value: unknown): unknown => TIERS.find((tier) => tier.label === value)?.value ?? value;
      const values = await columnValues(harness.emu, table.id, keyCase.column);
      expectEachOnce(values.filter((value) => !String(value).startsWith('other')).map(asValue), keyCase.keys);
    });
  }

  keyTest('a cell the service cut at 200 characters is never taken for a key', async ({ pushHarness: harness }) => {
    const table = await keysTable(harness);
    const long = 'k'.repeat(200);
    // the table's cell is longer: its first 200 characters equal the key, but it is not the key
    await addRows(harness, table.id, [{ Code: `${long}-and-more` }, { Code: 'short' }]);
    const path = await harness.file('input.ndjson', ndjson([{ code: long }, { code: 'short' }]));
    const result = await harness.tds(['push', table.url, path, '--key', 'code', '--table', 'Keys', '--skip-existing', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { records: { sent: number }; key: { existing: number } };
    expect(summary.key.existing).toBe(1);
    expect(summary.records.sent).toBe(1);
    // the cut row, and the row of the record sent
    const values = await columnValues(harness.emu, table.id, 'Code');
    expect(values.filter((value) => String(value).startsWith(long))).toHaveLength(2);
  });

  keyTest('a small table is read once rather than looked up key by key', async ({ pushHarness: harness }) => {
    // 150 email keys take 2 queries (97 `=` rules a query); the table's 50 rows, 1 page
    const many = Array.from({ length: 150 }, (_, i) => `reader${i + 1}@example.com`);
    const table = await webhookTable(harness, 'Small', [{ label: 'Mail', type: 'email', mapKey: 'mail' }]);
    await addRows(
      harness,
      table.id,
      many.slice(0, 50).map((mail) => ({ Mail: mail })),
    );
    const path = await harness.file('input.ndjson', ndjson(many.map((mail) => ({ mail }))));
    const result = await harness.tds(['push', table.url, path, '--key', 'mail', '--table', 'Small', '--skip-existing', '-v']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/--skip-existing: the table's 50 rows read once \(1 row request\), 150 keys checked locally/);
    // the one query is the check, after sending, that the keys sent show in the table
    expect(rowRequests(harness.emu).queries).toBe(1);
    expectEachOnce(await columnValues(harness.emu, table.id, 'Mail'), many);
  });
});

describe('--skip-existing --db: the local mirror', () => {
  keyTest('is synced incrementally and answers the lookup when that costs fewest row requests', async ({ pushHarness: harness }) => {
    const table = await webhookTable(harness, 'Mirrored', [{ label: 'Mail', type: 'email', mapKey: 'mail' }]);
    const keys = Array.from({ length: 300 }, (_, i) => `member${i + 1}@example.com`);
    // 1,000 rows made over the last days (100 of them with keys of the input), newest first
    const older = Array.from({ length: 900 }, (_, i) => `old${i}@elsewhere.org`);
    const now = Date.now();
    await addRows(
      harness,
      table.id,
      [...keys.slice(0, 100), ...older].map((mail) => ({ Mail: mail })),
      (i) => new Date(now - (i + 5) * 600_000).toISOString(),
    );
    const synced = await harness.tds(['sync', 'Mirrored', '--db', 'm.duckdb']);
    expect(synced.code, synced.stderr).toBe(0);
    const path = await harness.file('input.ndjson', ndjson(keys.map((mail) => ({ mail }))));
    const before = rowRequests(harness.emu);
    const args = ['push', table.url, path, '--key', 'mail', '--table', 'Mirrored', '--skip-existing', '--db', 'm.duckdb'];
    const result = await harness.tds([...args, '-v', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/--skip-existing: the local mirror synced first \(about 1 row request\), 300 keys checked in it/);
    const summary = JSON.parse(result.stdout) as { records: { sent: number }; key: { existing: number } };
    expect(summary.key.existing).toBe(100);
    expect(summary.records.sent).toBe(200);
    // the mirror's sync read one page; the one query is the check that the keys sent show in the table
    const used = rowRequests(harness.emu);
    expect(used.pages - before.pages).toBe(1);
    expect(used.queries - before.queries).toBe(1);
    expectEachOnce(await columnValues(harness.emu, table.id, 'Mail'), keys);
  });
});

describe('a webhook that does not fill the key column', () => {
  keyTest(
    'the push stops with a clear error after the first batch taken in, instead of reconciling into duplicates',
    async ({ pushHarness: harness }) => {
      // the webhook fills Mail from "email", but the push says the key "mail" fills Mail
      const table = await webhookTable(harness, 'Unmapped', [{ label: 'Mail', type: 'email', mapKey: 'email' }]);
      const path = await harness.file('input.ndjson', ndjson(mails.slice(0, 20).map((mail) => ({ mail }))));
      const result = await harness.tds(['push', table.url, path, '--key', 'mail=Mail', '--table', 'Unmapped', '--batch-size', '5']);
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toMatch(/the column "Mail" does not show the keys of records 1–5, which the webhook took in/);
      expect(result.stderr).toMatch(/the webhook does not fill "Mail" from "mail"/);
    },
  );

  test('an uncertain batch is not sent again when the keys of a batch taken in cannot be found', async ({ openHarness }) => {
    // HEAD, batch 1 taken in, batch 2 answered 500 after its rows were stored
    const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500@3' });
    try {
      const table = await webhookTable(harness, 'Unmapped', [{ label: 'Mail', type: 'email', mapKey: 'email' }]);
      const path = await harness.file('input.ndjson', ndjson(mails.slice(0, 20).map((mail) => ({ mail }))));
      const args = ['push', table.url, path, '--key', 'mail=Mail', '--table', 'Unmapped', '--batch-size', '5', '--concurrency', '1'];
      const result = await harness.tds(args);
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toMatch(/cannot reconcile uncertain records by key: the column "Mail" does not show the keys of records 1–5/);
      expect(result.stderr).toMatch(/the uncertain batches are left in the journal/);
      // batch 2 was not sent again: two requests' rows, no duplicate
      expect(webhookPosts(harness.emu)).toHaveLength(2);
      expect(await columnValues(harness.emu, table.id, 'Mail')).toHaveLength(10);
    } finally {
      await harness.close();
    }
  });
});

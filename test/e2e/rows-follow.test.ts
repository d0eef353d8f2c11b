import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { emulatorRequests, type LoggedRequest } from './read-support.js';
import { waitUntil } from './export-support.js';
import { allRows, parseDelimited, parseNdjson, schemaOf, tableNamed } from './rows-support.js';

// Issue 16: `tds rows TABLE --follow`. Rows pushed through the webhook while tds follows the table
// (flushed at once through the emulator's /_emulator/flush) appear once each, in creation order, and an
// idle poll costs one row request, as the emulator's request log shows.

let emulator: Harness;

it.override({ harnessOptions: { spawned: { args: ['--ingest-delay', '50'] } } });
it.beforeAll(({ harness }) => {
  emulator = harness;
});

/** Posts records to a table's webhook and makes them visible now. */
async function push(tableId: string, records: Array<Record<string, unknown>>): Promise<void> {
  const response = await fetch(emulator.webhooks[tableId]!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(response.status).toBe(200);
  await emulator.admin('POST', '/flush');
}

const rowReads = async (tableId: string): Promise<LoggedRequest[]> =>
  (await emulatorRequests(emulator)).filter((entry) => entry.path.startsWith(`/v1/tables/${tableId}/rows`));
const hasCursor = (entry: LoggedRequest): boolean => new URL(entry.path, 'http://x').searchParams.has('cursor');
const emails = (prefix: string, count: number): Array<Record<string, unknown>> =>
  Array.from({ length: count }, (_, i) => ({ email: `${prefix}${i}@follow.example` }));

describe('tds rows --follow', () => {
  it('NDJSON: rows added while following appear once each, in creation order; an idle poll is one request; Ctrl-C exits 0', async () => {
    const inbox = await tableNamed(emulator, 'Inbox');
    const run = emulator.spawn(['rows', inbox.id, '--follow', '--every', '0.2', '--format', 'ndjson', '--page-size', '5']);
    const written = (): Array<Record<string, unknown>> => parseNdjson(run.stdout());
    // The export (one request: the table is empty) and a first poll.
    await waitUntil(async () => (await rowReads(inbox.id)).length >= 2, 15_000, 'the first poll');

    await push(inbox.id, emails('first', 3));
    await waitUntil(() => written().length >= 3, 15_000, 'three rows');
    // A burst of more than a page (5): read page after page until a known row.
    const beforeBurst = (await rowReads(inbox.id)).length;
    await push(inbox.id, emails('burst', 12));
    await waitUntil(() => written().length >= 15, 15_000, 'fifteen rows');
    expect((await rowReads(inbox.id)).slice(beforeBurst).some(hasCursor)).toBe(true);

    // Idle: each poll is one request for the newest page, about --every apart: two requests of one poll would
    // come within milliseconds; half of --every leaves room for a loaded machine delaying one request.
    const idleFrom = (await rowReads(inbox.id)).length;
    await waitUntil(async () => (await rowReads(inbox.id)).length >= idleFrom + 5, 15_000, 'five idle polls');
    const idle = (await rowReads(inbox.id)).slice(idleFrom + 1); // the first may belong to the burst's last poll
    expect(idle.filter(hasCursor)).toEqual([]);
    for (let i = 1; i < idle.length; i += 1) expect(idle[i]!.at - idle[i - 1]!.at).toBeGreaterThanOrEqual(100);

    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    const records = written();
    const sent = (prefix: string, count: number): string[] => emails(prefix, count).map((record) => String(record.email));
    expect(
      records
        .slice(0, 3)
        .map((record) => record.Email)
        .sort(),
    ).toEqual(sent('first', 3).sort());
    expect(
      records
        .slice(3)
        .map((record) => record.Email)
        .sort(),
    ).toEqual(sent('burst', 12).sort());
    // Oldest first: by creation time, and rows of one request (one creation time) by ID, as the service orders them.
    const order = records.map((record) => `${record._createdAt as string} ${record._id as string}`);
    expect(order).toEqual([...order].sort());
    const ids = records.map((record) => record._id as string);
    expect(new Set(ids).size).toBe(15);
    expect(new Set(ids)).toEqual(new Set((await allRows(emulator, inbox.id)).map((row) => row.id)));
    expect(run.stderr()).not.toMatch(/tds: (?!warning)/);
  });

  it('CSV after -n 3: the newest 3 rows, then only rows created since; the header once', async () => {
    const signups = await tableNamed(emulator, 'Signups');
    const before = await allRows(emulator, signups.id);
    const run = emulator.spawn(['rows', 'Signups', '-n', '3', '--follow', '--every', '0.2', '--columns', 'Email,Name', '--no-meta']);
    await waitUntil(() => run.stdout().split('\n').length >= 5, 15_000, 'the export');
    await waitUntil(async () => (await rowReads(signups.id)).length >= 2, 15_000, 'a poll');
    await push(signups.id, [
      { email: 'new1@follow.example', name: 'New One' },
      { email: 'new2@follow.example', name: 'New Two' },
    ]);
    await waitUntil(() => run.stdout().includes('new2@follow.example'), 15_000, 'the new rows');
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    expect(
      run
        .stdout()
        .split('\n')
        .filter((line) => line === 'Email,Name'),
    ).toHaveLength(1);
    const records = parseDelimited(run.stdout());
    const emailField = (await schemaOf(emulator, signups.id)).find((field) => field.label === 'Email')!;
    const newest = before.slice(0, 3).map((row) => row.cells[emailField.id]?.value ?? '');
    expect(records.slice(0, 3).map((record) => record.Email)).toEqual(newest);
    expect(
      records
        .slice(3)
        .map((record) => record.Email)
        .sort(),
    ).toEqual(['new1@follow.example', 'new2@follow.example']);
    expect(records).toHaveLength(5);
  });

  it.each([
    [['--format', 'json'], /a JSON array cannot do/],
    [['-o', 'out.ndjson'], /--follow writes to stdout/],
    [['-q', 'acme'], /--follow cannot be used with -q/],
    [['--every', '0'], /--every must be a number from 0.01/],
  ])('refuses --follow with %j (exit 2)', async (extra, message) => {
    const run = await emulator.tds(['rows', 'Signups', '--follow', ...extra]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('--every without --follow is refused', async () => {
    const run = await emulator.tds(['rows', 'Signups', '--every', '5']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--every needs --follow/);
  });
});

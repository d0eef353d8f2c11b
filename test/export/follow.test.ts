import { describe, expect, it } from 'vitest';
import { HashedStringSet } from '../../src/collections/hashed-string-set.js';
import { follow, newRowsSince, remember, type Known } from '../../src/export/page-loop.js';
import type { FetchPage } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import type { Row } from '../../src/service/index.js';
import { context, makeRow, request, service } from './export-fixtures.js';

// Issue 16: `tds rows --follow`. The table is played by a list kept newest first (as the service lists
// rows without a search), which the tests grow between polls.

const at = (second: number): string => new Date(Date.UTC(2024, 0, 1, 0, 0, second)).toISOString();

/** A table of `count` rows created a second apart, listed newest first. */
function table(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => makeRow(i, at(i))).reverse();
}

let next = 1000;

/** Adds `count` rows created after every row of the table (a second apart), at its head; returns them oldest first. */
function grow(rows: Row[], count: number): Row[] {
  const newest = Date.parse(rows[0]?.createdAt ?? at(0));
  const added = Array.from({ length: count }, (_, i) => makeRow((next += 1), new Date(newest + (i + 1) * 1000).toISOString()));
  rows.unshift(...[...added].reverse());
  return added;
}

function knownOf(rows: readonly Row[]): Known {
  const known: Known = { seen: new HashedStringSet(), newestMs: undefined };
  remember(known, rows);
  return known;
}

const ids = (rows: readonly Row[]): string[] => rows.map((row) => row.id);

/**
 * The pages of `source`, calling `onRequest(n)` before the n-th page request (from 1) is answered; with
 * `firstPagesOnly`, only the requests for a first page count (one a poll), the others are just answered.
 */
function polled(source: () => readonly Row[], onRequest: (n: number) => void, { firstPagesOnly = false } = {}): FetchPage {
  const svc = service(source);
  let requests = 0;
  return async (cursor, limit) => {
    if (!firstPagesOnly || cursor === undefined) onRequest((requests += 1));
    return svc.fetchPage(cursor, limit);
  };
}

describe('newRowsSince', () => {
  it('a look with nothing new costs exactly one request', async () => {
    const rows = table(30);
    const svc = service(() => rows);
    expect(await newRowsSince(svc.fetchPage, knownOf(rows), 5)).toEqual([]);
    expect(svc.calls).toEqual([{ cursor: undefined, limit: 5 }]);
  });

  it.each([
    ['returns the rows created since, oldest first, in one request when they fit a page', 3, [undefined]],
    ['reads a burst of more than a page completely, page after page until a known row', 12, [undefined, '5', '10']],
  ])('%s', async (_name, count, cursors) => {
    const rows = table(30);
    const known = knownOf(rows);
    const added = grow(rows, count);
    const svc = service(() => rows);
    expect(ids(await newRowsSince(svc.fetchPage, known, 5))).toEqual(ids(added));
    expect(svc.calls.map((call) => call.cursor)).toEqual(cursors);
  });

  it('rows created before the newest known row are not new: the walk stops there', async () => {
    const rows = table(30);
    const known = knownOf(rows.slice(0, 3)); // an export of the newest 3 (-n 3)
    const svc = service(() => rows);
    expect(await newRowsSince(svc.fetchPage, known, 5)).toEqual([]);
    expect(svc.calls).toHaveLength(1);
    // A row added with a creation time in the past (older than the newest known) is not reported.
    rows.splice(5, 0, makeRow(900, at(20)));
    const fresh = grow(rows, 2);
    expect(ids(await newRowsSince(svc.fetchPage, known, 5))).toEqual(ids(fresh));
  });

  it('a row created in the same millisecond as the newest known row is new when its ID is', async () => {
    const rows = table(10);
    const known = knownOf(rows);
    const twin = makeRow(500, rows[0]!.createdAt);
    rows.unshift(twin);
    expect(ids(await newRowsSince(service(() => rows).fetchPage, known, 5))).toEqual([twin.id]);
  });

  it('with nothing written before (an empty table at the start), every row is new; a row repeated across pages comes once', async () => {
    const rows = table(7);
    const repeating = service(() => rows);
    const fetchPage: typeof repeating.fetchPage = async (cursor, limit) => {
      const page = await repeating.fetchPage(cursor, limit);
      return cursor ? { ...page, rows: [rows[Number(cursor) - 1]!, ...page.rows] } : page;
    };
    expect(ids(await newRowsSince(fetchPage, knownOf([]), 3))).toEqual(ids([...rows].reverse()));
  });
});

describe('follow', () => {
  it('writes new rows as they appear, each once, until the signal; then ends normally', async () => {
    const rows = table(10);
    const known = knownOf(rows);
    const run = context();
    const written: string[][] = [];
    const expected: string[] = [];
    const fetchPage = polled(
      () => rows,
      (poll) => {
        if (poll === 2) expected.push(...ids(grow(rows, 2)));
        if (poll === 4) expected.push(...ids(grow(rows, 7)));
        if (poll === 6) run.controller.abort();
      },
      { firstPagesOnly: true },
    );
    const count = await follow(run.ctx, fetchPage, known, {
      everyMs: 5,
      pageSize: 3,
      write: async (batch) => void written.push(ids(batch)),
    });
    expect(written).toEqual([expected.slice(0, 2), expected.slice(2)]);
    expect(count).toBe(9);
  });

  it('a failure other than Ctrl-C ends the follow with that failure', async () => {
    const run = context();
    const boom = new Error('service down');
    await expect(
      follow(
        run.ctx,
        async () => {
          throw boom;
        },
        knownOf([]),
        { everyMs: 1, pageSize: 5, write: async () => undefined },
      ),
    ).rejects.toBe(boom);
  });
});

describe('runExport with follow', () => {
  it('after the export (NDJSON), writes the rows created since, oldest first, none twice; Ctrl-C ends it with the count', async () => {
    const rows = table(12);
    const run = context();
    let added: Row[] = [];
    const fetchPage = polled(
      () => rows,
      (poll) => {
        if (poll === 3) added = grow(rows, 8);
        if (poll === 5) run.controller.abort();
      },
      { firstPagesOnly: true },
    );
    const summary = await runExport(
      run.ctx,
      fetchPage,
      request({ format: 'ndjson', follow: { everyMs: 5 }, limit: 4, rowWindow: { requests: 60, perMs: 60 } }),
    );
    const written = run
      .stdout()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { _id: string })._id);
    expect(written).toEqual([...ids(table(12).slice(0, 4)), ...ids(added)]);
    expect(summary).toMatchObject({ rows: 4, followed: 8 });
  });

  it('CSV: the header once, at the start', async () => {
    const rows = table(3);
    const run = context();
    const fetchPage = polled(
      () => rows,
      (request) => {
        if (request === 3) grow(rows, 2);
        if (request === 5) run.controller.abort();
      },
    );
    await runExport(run.ctx, fetchPage, request({ follow: { everyMs: 5 }, rowWindow: { requests: 60, perMs: 60 } }));
    const lines = run.stdout().trim().split('\n');
    expect(lines.filter((line) => line.startsWith('_id,'))).toHaveLength(1);
    expect(lines).toHaveLength(1 + 5);
  });

  it('cells the service cut in rows written while following are counted and reported at the end', async () => {
    const rows = table(2);
    const run = context();
    const fetchPage = polled(
      () => rows,
      (request) => {
        if (request === 2) {
          const [added] = grow(rows, 1);
          added!.cells.f_notes = { value: 'n'.repeat(200), isTruncated: true, valuePreview: 'n'.repeat(200) };
        }
        if (request === 3) run.controller.abort();
      },
    );
    await runExport(run.ctx, fetchPage, request({ follow: { everyMs: 5 }, rowWindow: { requests: 60, perMs: 60 } }));
    expect(run.stderr()).toBe('tds: warning: 1 cell was cut by the service at 200 characters (the cut text was kept): "Notes" 1\n');
  });

  it('--every faster than the row-read limit allows is slowed to it, and says so', async () => {
    const run = context();
    const fetchPage = polled(
      () => table(2),
      (request) => {
        if (request === 3) run.controller.abort();
      },
    );
    const started = Date.now();
    await runExport(run.ctx, fetchPage, request({ follow: { everyMs: 1 }, rowWindow: { requests: 60, perMs: 6000 } }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(180); // two polls, 100 ms apart
    expect(run.stderr()).toBe('tds: polling every 0.1s, not more often: the service allows 60 row reads a minute\n');
  });
});

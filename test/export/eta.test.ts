import { describe, expect, it } from 'vitest';
import { etaMs, formatDuration, progressText } from '../../src/export/progress.js';
import { pageLimit } from '../../src/export/export-request.js';

const window = { requests: 60, perMs: 60_000 };

describe('etaMs', () => {
  it.each([
    { name: 'nothing left', remainingRows: 0, recentRequests: [], msPerPage: 50, expected: 0 },
    { name: 'a few pages inside the free part of the window', remainingRows: 300, recentRequests: [], msPerPage: 50, expected: 150 },
    // 60 requests in the last second: the next one waits for the oldest to leave the window.
    {
      name: 'a full window',
      remainingRows: 100,
      recentRequests: Array.from({ length: 60 }, (_, i) => 1_000 + i),
      msPerPage: 10,
      expected: 1_000 + 60_000 + 10 - 1_000,
    },
    // 12,000 rows from scratch: 120 requests, the 61st at one minute, the 120th just after.
    { name: '12,000 rows from scratch', remainingRows: 12_000, recentRequests: [], msPerPage: 20, expected: 60_000 + 59 * 20 + 20 },
  ])('$name', ({ remainingRows, recentRequests, msPerPage, expected }) => {
    expect(etaMs({ remainingRows, pageSize: 100, now: 1_000, recentRequests, msPerPage, window })).toBe(expected);
  });

  it('grows by one window per 60 requests in the steady state', () => {
    const eta = (rows: number): number => etaMs({ remainingRows: rows, pageSize: 100, now: 0, recentRequests: [], msPerPage: 1, window });
    expect(eta(36_000) - eta(30_000)).toBe(60_000);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [42_400, '42s'],
    [185_000, '3m 5s'],
    [3_720_000, '1h 2m'],
  ])('%i ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('progressText', () => {
  it('shows rows, rate, percentage and ETA when the total is known', () => {
    const eta = { now: 0, pageSize: 100, recentRequests: [], msPerPage: 100, window };
    expect(progressText({ rows: 1_200, elapsedMs: 10_000, total: 2_500, eta })).toBe(
      '1,200 rows · 120 rows/s · 48% of 2,500 · about 1s left',
    );
  });

  it('shows rows and rate only for a filtered export; the rate leaves out rows of an earlier run', () => {
    expect(progressText({ rows: 1_500, startRows: 1_000, elapsedMs: 5_000 })).toBe('1,500 rows · 100 rows/s');
  });
});

describe('pageLimit', () => {
  it.each([
    [100, undefined, 0, 100],
    [100, 250, 0, 100],
    [100, 250, 200, 50],
    [20, 250, 240, 10],
    [100, 5, 0, 5],
  ])('page size %i, --limit %s, %i written → limit %i', (pageSize, limit, written, expected) => {
    expect(pageLimit(pageSize, limit, written)).toBe(expected);
  });
});

import { describe, expect } from 'vitest';
import { sqlRows } from './diff-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Moments and durations a user can get wrong, and a mirror file that is not there (issue 29, items 5,
// 6 and 13): each is one line and its exit code, never a stack, and a refused prune writes nothing.

let harness: Harness;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  const synced = await harness.tds(['sync', 'Signups']);
  expect(synced.code, synced.stderr).toBe(0);
});

const NO_STACK = /\n\s+at |RangeError|unexpected failure/;

describe('a moment or duration that cannot be (items 5 and 6)', () => {
  it.each([
    [
      'a duration too long',
      ['--since', '99999999999d'],
      /^tds: --since "99999999999d" is longer than tds takes\nhint: a duration goes from 0s up to 36500d \(100 years\)/,
    ],
    [
      'a day February does not have',
      ['--since', '2026-02-30'],
      /^tds: --since "2026-02-30" is not a date and time of the calendar\nhint: /,
    ],
    [
      'an hour the clock does not have',
      ['--until', '2026-03-01T24:30:00Z'],
      /^tds: --until "2026-03-01T24:30:00Z" is not a date and time of the calendar/,
    ],
  ])('tds diff with %s exits 2 naming what is taken', async (_what, args, message) => {
    const result = await harness.tds(['diff', 'Signups', ...args]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(NO_STACK);
  });

  it('tds sync --prune-history with a duration too long exits 2 before syncing: no sync left incomplete', async () => {
    const before = await sqlRows(harness, 'SELECT sync_id, complete FROM _tds_syncs ORDER BY sync_id');
    const result = await harness.tds(['sync', 'Signups', '--prune-history', '99999999999d']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^tds: --prune-history "99999999999d" is longer than tds takes\nhint: a duration goes from 0s up to 36500d/,
    );
    expect(result.stderr).not.toMatch(NO_STACK);
    expect(await sqlRows(harness, 'SELECT sync_id, complete FROM _tds_syncs ORDER BY sync_id')).toEqual(before);
    expect(before.every((row) => row.complete === true)).toBe(true);
    const longest = await harness.tds(['sync', 'Signups', '--prune-history', '36500d']);
    expect(longest.code, longest.stderr).toBe(0);
  });
});

describe('a mirror file that is not there (item 13): exit 4 in every command that reads one', () => {
  it.each([
    ['tds diff', ['diff', 'Signups', '--db', 'none.duckdb']],
    ['tds stats --no-sync', ['stats', 'Signups', '--no-sync', '--db', 'none.duckdb']],
    ['tds sql', ['sql', 'SELECT 1', '--db', 'none.duckdb']],
  ])('%s', async (_command, args) => {
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(
      /^tds: (the mirror none\.duckdb does not exist|there is no mirror none\.duckdb)\nhint: make it with `tds sync TABLE --db /,
    );
  });
});

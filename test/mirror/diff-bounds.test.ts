import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseDuration } from '../../src/core/duration.js';
import { parseWhen } from '../../src/mirror/diff/open-diff.js';

// WHEN of `tds diff` and `diff_table`, and the durations of `--prune-history` (issue 29, items 5 and 6):
// a duration too long for a clock and a date the calendar does not have are usage errors that say
// what is taken, never a RangeError nor a date moved to the next month.

const NOW = Date.parse('2026-03-10T12:00:00.000Z');

describe('parseWhen', () => {
  it.each([
    ['sync:3', { kind: 'sync', n: 3 }],
    ['now', { kind: 'now' }],
    ['90m', { kind: 'time', at: '2026-03-10T10:30:00.000Z' }],
    ['36500d', { kind: 'time', at: new Date(NOW - 36_500 * 86_400_000).toISOString() }],
    ['2024-02-29', { kind: 'time', at: '2024-02-29T00:00:00.000Z' }],
    ['2026-03-01T23:59:59Z', { kind: 'time', at: '2026-03-01T23:59:59.000Z' }],
    ['2026-03-01T12:00:00+05:30', { kind: 'time', at: '2026-03-01T06:30:00.000Z' }],
  ])('%s is a moment', (text, when) => {
    expect(parseWhen(text, '--since', NOW)).toEqual(when);
  });

  it.each(['99999999999d', '36501d', '5215w'])('a duration too long (%s) is a usage error naming the range taken', (text) => {
    const attempt = (): unknown => parseWhen(text, '--since', NOW);
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(`--since ${JSON.stringify(text)} is longer than tds takes`);
    try {
      attempt();
    } catch (error) {
      expect((error as UsageError).hint).toMatch(/from 0s up to 36500d \(100 years\)/);
    }
  });

  it.each([
    '2026-02-30',
    '2026-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-03-01T24:00:00Z',
    '2026-03-01T12:60Z',
    '2026-03-01T12:00:61Z',
    '2026-03-01T12:00+25:00',
  ])('a date or time the calendar does not have (%s) is a usage error', (text) => {
    expect(() => parseWhen(text, '--until', NOW)).toThrow(`--until ${JSON.stringify(text)} is not a date and time of the calendar`);
  });
});

describe('parseDuration', () => {
  it('takes up to 36500d and names the option of one too long', () => {
    expect(parseDuration('36500d')).toBe(36_500 * 86_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('soon')).toBeUndefined();
    expect(() => parseDuration('99999999999d', '--prune-history')).toThrow('--prune-history "99999999999d" is longer than tds takes');
    // a number past the largest double
    expect(() => parseDuration(`${'9'.repeat(400)}s`)).toThrow(/is longer than tds takes/);
  });
});

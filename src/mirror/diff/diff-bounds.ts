import { UsageError } from '../../core/errors.js';
import { isCalendarDate } from '../../filter/dates.js';

// `tds diff --since/--until WHEN`: `sync:N` (a sync's ID; `sync:-1` the table's last sync, `sync:-2`
// the one before), an ISO 8601 date-time, a duration ago (`90m`, `2h`, `3d`), or `now`.

export type When = { kind: 'sync'; n: number } | { kind: 'time'; at: string } | { kind: 'now' };

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/i;
/** The longest duration taken: a century, so that "that long ago" is always a moment a clock can name. */
export const MAX_DURATION_DAYS = 36_500;
const MAX_DURATION_MS = MAX_DURATION_DAYS * UNIT_MS.d!;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/i;

/**
 * A duration (`30d`, `12h`, `90m`, `45s`, `2w`) in ms; undefined when the text is not one. A duration
 * longer than MAX_DURATION_DAYS is a usage error naming `option` (the flag or argument it came from).
 */
export function parseDuration(text: string, option = 'the duration'): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!;
  if (ms > MAX_DURATION_MS) {
    throw new UsageError(`${option} ${JSON.stringify(text)} is longer than tds takes`, {
      hint: `a duration goes from 0s up to ${MAX_DURATION_DAYS}d (100 years): s, m, h, d or w after a number`,
    });
  }
  return ms;
}

/** WHEN as given to --since or --until (`now`: the current time, to turn a duration into a moment). */
export function parseWhen(text: string, option: string, now: number = Date.now()): When {
  const value = text.trim();
  const sync = /^sync:(-?\d+)$/i.exec(value);
  if (sync) {
    const n = Number(sync[1]);
    if (n === 0)
      throw new UsageError(`${option} sync:0 names no sync`, { hint: 'sync:N takes a sync ID (see _tds_syncs), or sync:-1 for the last' });
    return { kind: 'sync', n };
  }
  if (value.toLowerCase() === 'now') return { kind: 'now' };
  const ms = parseDuration(value, option);
  if (ms !== undefined) return { kind: 'time', at: new Date(now - ms).toISOString() };
  const iso = ISO.exec(value);
  if (iso && !isMoment(iso)) {
    throw new UsageError(`${option} ${JSON.stringify(text)} is not a date and time of the calendar`, {
      hint: 'the month goes from 01 to 12, the day up to the days of that month, the hour from 00 to 23, minutes and seconds from 00 to 59',
    });
  }
  if (iso && !Number.isNaN(Date.parse(value))) return { kind: 'time', at: new Date(Date.parse(value)).toISOString() };
  throw new UsageError(`${option} ${JSON.stringify(text)} is not a moment tds diff knows`, {
    hint: 'give sync:N (a sync ID, or sync:-1 for the last sync), an ISO 8601 date-time (2026-03-01T12:00:00Z) or a duration ago (90m, 2h, 3d)',
  });
}

/** Whether the parts of an ISO 8601 date-time name a real moment (Date.parse reads 2026-02-30 as March 2). */
function isMoment(parts: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = parts.slice(1).map((part) => Number(part ?? 0));
  return isCalendarDate(year!, month!, day!) && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 23 && offsetMinutes! <= 59;
}

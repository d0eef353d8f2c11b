// ISO 8601 dates and date-times as filters send them. A date-time needs a time zone (Z or ±hh:mm):
// without one, which instant it means would be the service's guess.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

export const DATE_EXAMPLE = '2024-05-01 or 2024-05-01T10:00:00Z';

export function isIsoDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const n = group(match);
  return isCalendarDate(n(1), n(2), n(3)) && n(4) <= 23 && n(5) <= 59 && n(6) <= 59 && n(7) <= 23 && n(8) <= 59;
}

/**
 * `2024-05-01` → start of that day in UTC (its end with `endOfDay`, so a range ending on a date
 * includes that day); a full date-time is kept as written; else undefined.
 */
export function toIsoDateTime(text: string, options: { endOfDay?: boolean } = {}): string | undefined {
  const match = DATE.exec(text);
  if (match) {
    const n = group(match);
    if (!isCalendarDate(n(1), n(2), n(3))) return undefined;
    return `${text}${options.endOfDay ? 'T23:59:59.999Z' : 'T00:00:00.000Z'}`;
  }
  return isIsoDateTime(text) ? text : undefined;
}

/** Captured group i as a number; 0 for a group that did not take part. */
function group(match: RegExpExecArray): (index: number) => number {
  return (index) => Number(match[index] ?? 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether the year, month (1-12) and day name a day of the calendar (2026-02-30 does not). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
  return day <= days;
}

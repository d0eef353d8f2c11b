// What a cell's value means: its text, emptiness, ISO 8601 dates and date presets, and what an emulated action
// derives from it.

import type { DatePreset } from '../../service/index.js';
import type { DeriveRule, StoredCell } from './model.js';

/** A cell value as text: strings as they are, everything else as JSON text ('' when empty). */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** No value: absent, null, '' or an empty list. */
export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A cell with nothing to show is left out of row responses. */
export function isEmptyCell(cell: StoredCell | undefined): boolean {
  return (
    cell === undefined ||
    (isEmptyValue(cell.value) && (cell.status === undefined || cell.status === null) && isEmptyValue(cell.errorMessage))
  );
}

/** An editable copy of a row's cells: computed cells (getters on a prototype) become plain members. */
export function plainCells(cells: Record<string, StoredCell>): Record<string, StoredCell> {
  const copy: Record<string, StoredCell> = {};
  // for…in on purpose: it lists the computed cells, which are inherited getters.
  for (const id in cells) {
    const cell = cells[id];
    if (cell !== undefined) copy[id] = cell;
  }
  return copy;
}

/** Whether the cells are a plain object (safe to edit in place). */
export function hasPlainCells(cells: Record<string, StoredCell>): boolean {
  return Object.getPrototypeOf(cells) === Object.prototype;
}

export type Derived = { value: unknown } | { error: string };

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * What an emulated action computes from its input:
 *   domain   the domain of an email address or URL ("ada@acme-corp.example" -> "acme-corp.example"); fails without one
 *   company  a company name from that domain ("acme-corp.example" -> "Acme Corp"); fails without a domain
 *   upper    the input's text in upper case
 *   length   the number of characters of the input's text
 *   echo     the input as it is (the default)
 */
export function deriveValue(rule: DeriveRule | undefined, input: unknown): Derived {
  const text = cellText(input).trim();
  switch (rule) {
    case 'domain':
    case 'company': {
      const domain = domainOf(text);
      if (domain === undefined) return { error: `no domain in "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"` };
      return { value: rule === 'domain' ? domain : companyOf(domain) };
    }
    case 'upper':
      return { value: text.toUpperCase() };
    case 'length':
      return { value: Array.from(cellText(input)).length };
    default:
      return { value: input };
  }
}

function domainOf(text: string): string | undefined {
  let host = text.toLowerCase();
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  else if (host.includes('://')) {
    try {
      host = new URL(host).hostname;
    } catch {
      return undefined;
    }
  } else host = host.split('/')[0]!;
  host = host.replace(/^www\./, '');
  return DOMAIN.test(host) ? host : undefined;
}

function companyOf(domain: string): string {
  const labels = domain.split('.');
  const name = labels[labels.length - 2]!;
  return name
    .split('-')
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?$/i;

/** [start, end) in ms. */
export type Range = readonly [start: number, end: number];

/** ISO 8601 date-time (time required; no zone means UTC). */
export function parseDateTime(text: string): number | undefined {
  const match = DATE_TIME.exec(text);
  if (!match || !isCalendarDate(match) || !isClockTime(match)) return undefined;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A date-only value covers its whole UTC day; a date-time is one instant. */
export function parseDateOrDateTime(text: string): Range | undefined {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    if (!isCalendarDate(dateOnly)) return undefined;
    const start = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(start) ? undefined : [start, start + DAY_MS];
  }
  const at = parseDateTime(text);
  return at === undefined ? undefined : [at, at + 1];
}

/**
 * Date.parse rolls impossible dates over ("2025-02-30" is March 2, "T24:00" the next day): a service that
 * validates ISO 8601 refuses them, so the emulator checks each part itself.
 */
function isCalendarDate([, year, month, day]: RegExpExecArray): boolean {
  const y = Number(year);
  const m = Number(month);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return days !== undefined && Number(day) >= 1 && Number(day) <= days;
}

function isClockTime([, , , , hour, minute, second, , offsetHour, offsetMinute]: RegExpExecArray): boolean {
  const within = (part: string | undefined, max: number) => part === undefined || Number(part) <= max;
  return within(hour, 23) && within(minute, 59) && within(second, 59) && within(offsetHour, 23) && within(offsetMinute, 59);
}

/** The range of a preset at `now`, in UTC; weeks start on Monday; "lastNDays" are the N days ending today. */
export function presetRange(preset: DatePreset, now: number): Range {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const date = new Date(today);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const monday = today - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  const quarter = month - (month % 3);
  const utc = (y: number, m: number) => Date.UTC(y, m, 1);
  switch (preset) {
    case 'today':
      return [today, today + DAY_MS];
    case 'tomorrow':
      return [today + DAY_MS, today + 2 * DAY_MS];
    case 'yesterday':
      return [today - DAY_MS, today];
    case 'thisWeek':
      return [monday, monday + 7 * DAY_MS];
    case 'lastWeek':
      return [monday - 7 * DAY_MS, monday];
    case 'thisMonth':
      return [utc(year, month), utc(year, month + 1)];
    case 'lastMonth':
      return [utc(year, month - 1), utc(year, month)];
    case 'thisQuarter':
      return [utc(year, quarter), utc(year, quarter + 3)];
    case 'lastQuarter':
      return [utc(year, quarter - 3), utc(year, quarter)];
    case 'thisYear':
      return [utc(year, 0), utc(year + 1, 0)];
    case 'lastYear':
      return [utc(year - 1, 0), utc(year, 0)];
    default: {
      const days = Number(/^last(\d+)Days$/.exec(preset)![1]);
      return [today - (days - 1) * DAY_MS, today + DAY_MS];
    }
  }
}

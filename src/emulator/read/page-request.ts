import { CURSOR_MAX_CHARS, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN, SEARCH_MAX_CHARS } from '../../service/index.js';
import { badRequest } from '../http/errors.js';
import { checkFilters, onlyMembers, type CheckedFilters } from './filter-check.js';
import type { FieldRec } from '../store/model.js';

/** A validated request for a page of rows (GET …/rows or POST …/rows/query). */
export interface PageRequest {
  limit: number;
  cursor?: string;
  /** '' when there is no search text. */
  search: string;
  filters?: CheckedFilters;
}

/** GET …/rows: `limit`, `cursor`, `q`; nothing else, each at most once. */
export function parseRowsParams(params: URLSearchParams): PageRequest {
  const single = singleParams(params, ['limit', 'cursor', 'q']);
  const limitText = single.get('limit');
  let limit = PAGE_LIMIT_DEFAULT;
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText)) throw limitError(limitText);
    limit = checkLimit(Number(limitText), limitText);
  }
  const cursor = single.get('cursor');
  if (cursor !== undefined) checkCursor(cursor);
  const q = single.get('q');
  if (q !== undefined) checkSearch(q, 'q');
  return { limit, ...(cursor !== undefined ? { cursor } : {}), search: q ?? '' };
}

/** POST …/rows/query: a JSON object with only limit, cursor, q, query and filters. `query` wins over `q`, even empty. */
export function parseQueryBody(body: unknown, fields: readonly FieldRec[]): PageRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
  const record = body as Record<string, unknown>;
  onlyMembers(record, 'body', ['limit', 'cursor', 'q', 'query', 'filters']);
  let limit = PAGE_LIMIT_DEFAULT;
  if ('limit' in record) {
    if (typeof record.limit !== 'number' || !Number.isInteger(record.limit)) throw limitError(shownValue(record.limit));
    limit = checkLimit(record.limit, String(record.limit));
  }
  const { cursor, q, query } = record;
  if ('cursor' in record) {
    if (typeof cursor !== 'string') throw badRequest('cursor must be a string: the nextCursor of the previous page');
    checkCursor(cursor);
  }
  for (const [name, value] of [
    ['q', q],
    ['query', query],
  ] as const) {
    if (name in record) {
      if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
      checkSearch(value, name);
    }
  }
  const search = typeof query === 'string' ? query : typeof q === 'string' ? q : '';
  const filters = 'filters' in record ? checkFilters(record.filters, fields) : undefined;
  return { limit, ...(typeof cursor === 'string' ? { cursor } : {}), search, ...(filters ? { filters } : {}) };
}

/** Query parameters of a route: only `allowed` ones, each at most once. */
export function singleParams(params: URLSearchParams, allowed: readonly string[]): Map<string, string> {
  const single = new Map<string, string>();
  for (const [name, value] of params) {
    if (!allowed.includes(name)) {
      throw badRequest(
        `unknown query parameter "${name}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; this route takes none'}`,
      );
    }
    if (single.has(name)) throw badRequest(`query parameter "${name}" is given more than once`);
    single.set(name, value);
  }
  return single;
}

function checkLimit(limit: number, shown: string): number {
  if (limit < PAGE_LIMIT_MIN || limit > PAGE_LIMIT_MAX) throw limitError(shown);
  return limit;
}

/** A short view of any JSON value for a message: never its whole text, which may be huge or too deep to print. */
function shownValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function limitError(shown: string) {
  return badRequest(`limit must be a whole number from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} (got ${shown})`);
}

function checkCursor(cursor: string): void {
  if (cursor.length > CURSOR_MAX_CHARS) throw badRequest(`cursor is ${cursor.length} characters; a cursor is at most ${CURSOR_MAX_CHARS}`);
  if (cursor === '') throw badRequest('cursor is empty: leave it out for the first page');
}

function checkSearch(text: string, name: string): void {
  if (text.length > SEARCH_MAX_CHARS) throw badRequest(`${name} is ${text.length} characters; search text is at most ${SEARCH_MAX_CHARS}`);
}

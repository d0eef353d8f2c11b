import { planFilters, type LocalFilter, FilterError, parseWhere, validateQuery } from '../filter/index.js';
import { planRecord, statusFieldIds, createRowShaper, type ShapeOptions, TruncationTally } from '../records/index.js';
import type { QueryBody, Row, RowsPage } from '../service/index.js';
import type { ApiClient } from '../http/index.js';
import { capRows, truncation } from './tool.js';
import type { Session } from './session.js';
import { serviceTable } from './catalog.js';

/** Records as an export makes them by default, with the `<key>.status` / `<key>.error` of action columns. */
const SHAPE: ShapeOptions = { header: 'label', meta: true, system: true, cells: 'value', statusColumns: true };

export interface SearchRowsArgs {
  table: string;
  where?: string | undefined;
  q?: string | undefined;
  limit: number;
}

/** search_rows: one page of live rows through the --where language, checked before any row request. */
export async function searchRows(session: Session, args: SearchRowsArgs): Promise<Record<string, unknown>> {
  const where = args.where === undefined ? [] : [args.where];
  // the expression's own mistakes are told before any request
  where.forEach((text) => asArgument(() => parseWhere(text)));
  const client = await session.service();
  const table = await serviceTable(session, (await client.tables()).tables, args.table);
  const { fields } = await client.schema(table.id);
  const { filters, local, hints } = asArgument(() => planFilters({ where, fields }));
  const body: QueryBody = { limit: args.limit, ...(args.q ? { q: args.q } : {}), ...(filters ? { filters } : {}) };
  validateQuery(body, fields);
  const page = local
    ? await testedPages(client, table.id, { ...body, limit: 100 }, local, args.limit)
    : filters || args.q
      ? await client.queryPage(table.id, body)
      : await client.rowsPage(table.id, { limit: body.limit });
  const rows = uniqueRows(page.rows);
  const tally = new TruncationTally();
  const shape = createRowShaper(planRecord(fields, SHAPE, statusFieldIds(fields)), 'value');
  const records = rows.map((row) => shape(row, tally));
  const notes = [...hints, ...('tested' in page ? [page.tested] : []), ...cutCells(tally)];
  return capRows(records, session.caps, (head, cutBy) => ({
    table: { id: table.id, name: table.name },
    records: head,
    returned: head.length,
    more: page.hasNextPage,
    notes,
    ...truncation({ cutBy, kept: head.length, total: records.length }, session.caps, 'ask for fewer rows (limit) or fewer matches (where)'),
  })).result;
}

/** Row requests search_rows makes at most when run states are tested here: 500 rows read, of the 60 a minute the organization has. */
const MAX_TESTED_PAGES = 5;

/**
 * The rows that pass the run-state tests, from full pages read until `limit` pass, the rows end, or
 * MAX_TESTED_PAGES requests were made; `tested` says what it cost.
 */
async function testedPages(
  client: ApiClient,
  tableId: string,
  body: QueryBody,
  local: LocalFilter,
  limit: number,
): Promise<RowsPage & { tested: string }> {
  const rows: Row[] = [];
  let read = 0;
  let requests = 0;
  let page: RowsPage | undefined;
  do {
    const cursor = page?.nextCursor;
    page = await client.queryPage(tableId, { ...body, ...(cursor ? { cursor } : {}) });
    requests += 1;
    read += page.rows.length;
    rows.push(...page.rows.filter((row) => local.test(row)));
  } while (rows.length < limit && page.hasNextPage && requests < MAX_TESTED_PAGES);
  const more = page.hasNextPage || rows.length > limit;
  const tested = `${local.text} was tested here, on the ${read} rows the service returned (${requests} row ${requests === 1 ? 'request' : 'requests'}${local.narrowed ? '' : '; no service operator covers it'})${page.hasNextPage && rows.length < limit ? `: stopped after ${MAX_TESTED_PAGES} requests, more rows remain` : ''}`;
  return { ...page, rows: rows.slice(0, limit), hasNextPage: more, tested };
}

/** A filter mistake names the argument it is in (`where: …` instead of the command line's `--where: …`). */
function asArgument<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const source = error instanceof FilterError ? error.location.source : undefined;
    if (error instanceof FilterError && (source === undefined || source.startsWith('--where'))) throw error.at({ source: 'where' });
    throw error;
  }
}

function uniqueRows(rows: readonly Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
}

function cutCells(tally: TruncationTally): string[] {
  const cut = Object.entries(tally.toJSON().service);
  if (cut.length === 0) return [];
  const list = cut.map(([key, count]) => `${key} (${count})`).join(', ');
  return [`cells the service cut at 200 characters (their first 200 are here): ${list}`];
}

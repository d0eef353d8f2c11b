import { z } from 'zod';
import { buildFilters } from '../../filter/build.js';
import { FilterError } from '../../filter/errors.js';
import { parseWhere } from '../../filter/parser.js';
import { validateQuery } from '../../filter/validate.js';
import { planRecord } from '../../records/record-plan.js';
import { createRowShaper } from '../../records/row-shaper.js';
import type { ShapeOptions } from '../../records/shape-options.js';
import { statusFieldIds } from '../../records/status-columns.js';
import { TruncationTally } from '../../records/truncation-tally.js';
import { PAGE_LIMIT_MAX, SEARCH_MAX_CHARS, type QueryBody, type Row } from '../../service/index.js';
import { capRows } from '../caps.js';
import type { Session } from '../session.js';
import { serviceTable } from '../table-ref.js';
import { truncation } from '../tool-result.js';
import { defineTool, type Tool } from '../tool.js';

const DEFAULT_LIMIT = 20;

/** Records as an export makes them by default, with the `<key>.status` / `<key>.error` of action columns. */
const SHAPE: ShapeOptions = { header: 'label', meta: true, system: true, cells: 'value', statusColumns: true };

function inputOf(maxLimit: number) {
  return z
    .object({
      table: z.string().min(1).describe('a table ID, exact name, or mirror table name'),
      where: z.string().min(1).max(10_000).optional().describe('a --where expression'),
      q: z.string().min(1).max(SEARCH_MAX_CHARS).optional().describe('case-insensitive text search across the cells'),
      limit: z.number().int().min(1).max(maxLimit).optional().describe(`rows at most (default ${DEFAULT_LIMIT})`),
    })
    .strict();
}
type Input = ReturnType<typeof inputOf>;

export function searchRowsTool(session: Session): Tool<Input> {
  const maxLimit = Math.min(PAGE_LIMIT_MAX, session.caps.maxRows);
  return defineTool({
    name: 'search_rows',
    title: 'Search live rows',
    description: [
      'Reads live rows of a table from the service (needs the API key), newest first: those matching `where`, an',
      'expression of the command line\'s --where language (e.g. Stage = "Closed Won" and Employees >= 100; Tags in [VIP,',
      'Partner]; Email contains acme; Enrich hasError; "Last Contacted" isDatePreset last7Days; columns by label, name or',
      'field ID, checked against the schema before any row is read) and/or the text search `q`. Returns `records` (keys as',
      `in an export: _id, _createdAt, …, one per column), at most \`limit\` (default ${DEFAULT_LIMIT}, at most ${maxLimit});`,
      '`more: true` when more rows match. One row request, within the row-read limit the server shares with its syncs.',
      'For counts, aggregates or many rows, prefer sync_tables then query_sql.',
    ].join(' '),
    input: inputOf(maxLimit),
    output: z.object({
      table: z.object({ id: z.string(), name: z.string() }),
      records: z.array(z.record(z.string(), z.unknown())),
      returned: z.number(),
      more: z.boolean().describe('more rows match than `limit`'),
      notes: z.array(z.string()),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: (args) => search(session, args),
  });
}

async function search(session: Session, args: z.output<Input>): Promise<Record<string, unknown>> {
  const where = args.where === undefined ? [] : [args.where];
  // the expression's own mistakes are told before any request
  where.forEach((text) => asArgument(() => parseWhere(text)));
  const client = session.service();
  const table = await serviceTable(session, (await client.tables()).tables, args.table);
  const { fields } = await client.schema(table.id);
  const filters = asArgument(() => buildFilters({ where, fields }));
  const body: QueryBody = { limit: args.limit ?? DEFAULT_LIMIT, ...(args.q ? { q: args.q } : {}), ...(filters ? { filters } : {}) };
  validateQuery(body, fields);
  const page = filters || args.q ? await client.queryPage(table.id, body) : await client.rowsPage(table.id, { limit: body.limit });
  const rows = uniqueRows(page.rows);
  const tally = new TruncationTally();
  const shape = createRowShaper(planRecord(fields, SHAPE, statusFieldIds(fields)), 'value');
  const records = rows.map((row) => shape(row, tally));
  const notes = cutCells(tally);
  return capRows(records, session.caps, (head, cutBy) => ({
    table: { id: table.id, name: table.name },
    records: head,
    returned: head.length,
    more: page.hasNextPage,
    notes,
    ...truncation({ cutBy, kept: head.length, total: records.length }, session.caps, 'ask for fewer rows (limit) or fewer matches (where)'),
  })).result;
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

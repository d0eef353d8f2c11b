import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import { loadSettings } from '../config/index.js';
import { type Context, UsageError } from '../core/index.js';
import {
  readExportFlags,
  type ExportFlags,
  type ExportFlagValues,
  pageLimit,
  type Endpoint,
  type ExportRequest,
  type ExportSummary,
  type FetchPage,
  runExport,
} from '../export/index.js';
import { planFilters, type FilterPlan, validateQuery } from '../filter/index.js';
import { type ApiClient, resolveTable } from '../http/index.js';
import type { Field, QueryBody } from '../service/index.js';
import { withClient } from './connect.js';

/** What `tds query` adds to the shared flags. */
export interface QueryInput {
  where: string[];
  any: boolean;
  /** The text of --filter (already read from @FILE or stdin). */
  filterText?: string;
  explain: boolean;
}

/**
 * The action of `tds rows` and `tds query`: flags checked, table and schema read, filters built
 * and checked (query), then the export; no row is requested before every check has passed.
 */
export async function runExportCommand(ctx: Context, command: Command, tableRef: string, query?: QueryInput): Promise<void> {
  const settings = await loadSettings(ctx, command);
  const line = { command: query ? ('query' as const) : ('rows' as const), table: tableRef };
  const flags = withScreenful(ctx, await readExportFlags(command.opts<ExportFlagValues>(), settings.defaultFormat, line));
  await withClient(ctx, settings, async (client) => {
    const table = await resolveTable(client, tableRef);
    const { fields } = await client.schema(table.id);
    const endpoint: Endpoint = query ? 'query' : 'rows';
    const plan = query ? filtersOf(query, fields) : undefined;
    const filters = plan?.filters;
    for (const hint of plan?.hints ?? []) ctx.io.stderr.write(`hint: ${hint}\n`);
    const body: QueryBody = {
      limit: pageLimit(flags.pageSize, flags.limit, 0),
      ...(flags.search !== '' ? { q: flags.search } : {}),
      ...(filters ? { filters } : {}),
    };
    if (query) {
      validateQuery(body, fields);
      if (query.explain) {
        ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        if (plan?.local) ctx.io.stderr.write(`${explainLocal(plan.local)}\n`);
        return;
      }
    }
    const request: ExportRequest = {
      ...flags,
      table,
      fields,
      endpoint,
      ...(filters ? { filters } : {}),
      ...(plan?.local ? { local: plan.local } : {}),
      // the row-read limit as this client spaces it (the settings' rate scale counted), for the ETA and --follow
      rowWindow: client.timings.windows.rows,
    };
    const summary = await runExport(ctx, fetcher(client, request), request);
    if (plan?.local) ctx.io.stderr.write(`${testedHere(plan.local, summary)}\n`);
    logSummary(ctx, summary, client);
  });
}

/** Lines a table needs besides its rows: header, footer, a hint, and the shell's prompt after it. */
const TABLE_CHROME_LINES = 5;

/** `--format table` on a terminal without -n: a screenful of rows (a hint says when more exist). */
function withScreenful(ctx: Context, flags: ExportFlags): ExportFlags & { screenful?: boolean } {
  if (flags.format !== 'table' || flags.limit !== undefined || !ctx.io.stdoutIsTTY) return flags;
  const terminalRows = (ctx.io.stdout as { rows?: number }).rows || Number(ctx.io.env.LINES) || 24;
  return { ...flags, limit: Math.max(3, terminalRows - TABLE_CHROME_LINES), screenful: true };
}

function filtersOf(query: QueryInput, fields: Field[]): FilterPlan {
  return planFilters({
    where: query.where,
    any: query.any,
    ...(query.filterText !== undefined ? { filterJson: query.filterText } : {}),
    fields,
  });
}

/** --explain: what runs where, beside the body the service is sent. */
function explainLocal(local: NonNullable<FilterPlan['local']>): string {
  const service = local.narrowed
    ? 'the service narrows the rows with the run-status rule(s) in the body above'
    : 'no service operator covers it, so every row the rest of the query matches is read';
  return `tds: tested here, on each row the service returns: ${local.text} (${service})`;
}

/** What the run-state tests cost: the rows read for the rows written. */
function testedHere(local: NonNullable<FilterPlan['local']>, summary: ExportSummary): string {
  const read = summary.tested ?? 0;
  const requests = `${summary.pages} ${summary.pages === 1 ? 'request' : 'requests'}`;
  return `tds: ${local.text} was tested here, on the ${read.toLocaleString('en-US')} rows the service returned (${requests}): ${summary.rows.toLocaleString('en-US')} written`;
}

/** One page of what the export reads: rows, or the query's rows, of its table. */
function fetcher(
  client: ApiClient,
  { table, endpoint, search, filters }: Pick<ExportRequest, 'table' | 'endpoint' | 'search' | 'filters'>,
): FetchPage {
  const q = search !== '' ? { q: search } : {};
  if (endpoint === 'rows') {
    return (cursor, limit, onBody) => client.rowsPage(table.id, { limit, ...(cursor ? { cursor } : {}), ...q }, onBody);
  }
  return (cursor, limit, onBody) =>
    client.queryPage(table.id, { limit, ...(cursor ? { cursor } : {}), ...q, ...(filters ? { filters } : {}) }, onBody);
}

function logSummary(ctx: Context, summary: ExportSummary, client: ApiClient): void {
  const { requests, retries, rateLimited, waitedMs } = client.stats;
  ctx.verbose(
    `tds: ${summary.rows} rows written from ${summary.pages} pages in ${(summary.elapsedMs / 1000).toFixed(1)}s` +
      `${summary.followed !== undefined ? ` and ${summary.followed} while following` : ''}; ` +
      `${summary.duplicates} duplicate rows dropped; ${summary.truncatedCells} cut cells; ` +
      `${requests} requests, ${retries} retries, ${rateLimited} rate-limited, ${(waitedMs / 1000).toFixed(1)}s waited`,
  );
}

/**
 * The text of `--filter JSON|@FILE|-`: inline JSON, a file, or stdin. `stdinTaken` when the API
 * key is read from stdin too (--api-key-file -): both cannot have it.
 */
export async function readFilterText(ctx: Context, raw: string, stdinTaken: boolean): Promise<string> {
  if (raw === '-') {
    if (stdinTaken) throw new UsageError('--filter - and --api-key-file - cannot both read stdin', { hint: 'give the filter as @FILE' });
    return text(ctx.io.stdin);
  }
  if (!raw.startsWith('@')) return raw;
  const path = raw.slice(1);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--filter: cannot read ${path}${code ? ` (${code})` : ''}`);
  }
}

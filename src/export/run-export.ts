import type { Context } from '../cli/context.js';
import { paginate } from '../http/paginate.js';
import { statusFieldIds } from '../records/status-columns.js';
import { ExportState } from './export-state.js';
import type { ExportRequest, ExportSummary, FetchPage } from './export-request.js';
import { exportFingerprint } from './fingerprint.js';
import { pageLimit } from './page-limit.js';
import { createPageWriter, type PageWriter } from './page-writer.js';
import { prepareOutput, type PreparedOutput } from './prepare-output.js';
import { createProgress } from './progress.js';
import { reportStop, reportTruncation } from './report.js';
import { HashedStringSet } from '../collections/hashed-string-set.js';

/** Pages requested beyond the one being written: enough to keep the service busy, little memory. */
const PAGES_AHEAD = 2;

/**
 * The export shared by `tds rows` and `tds query`: pages fetched one after another through the
 * cursor chain, each row once (by ID), shaped, written as the page arrives, and checkpointed after
 * each page when writing to a file, so memory stays at a page or two however large the table.
 */
export async function runExport(ctx: Context, fetchPage: FetchPage, request: ExportRequest): Promise<ExportSummary> {
  const started = Date.now();
  const fingerprint = exportFingerprint(request);
  const prepared = await prepareOutput(ctx, { path: request.output, resume: request.resume, restart: request.restart, fingerprint });
  const { output, checkpoint } = prepared;
  const state = prepared.resumed ? ExportState.resume(prepared.resumed) : new ExportState();
  const rowsAtStart = state.rows;
  const unfiltered = request.search === '' && !request.filters?.rules.length;
  const expectedRows = Math.min(request.table.rowCount, request.limit ?? Infinity);
  // Sized for the whole table when every row is expected, so the ID set never grows (no peak of old + new).
  const seen = new HashedStringSet(unfiltered ? expectedRows - rowsAtStart : 0);
  for (const id of state.lastPageIds) seen.add(id);
  const progress = await createProgress(ctx, {
    ...(unfiltered ? { total: expectedRows } : {}),
    startRows: rowsAtStart,
    pageSize: request.pageSize,
    window: request.rowWindow,
  });
  const limitReached = (): boolean => request.limit !== undefined && state.rows >= request.limit;

  let writer: PageWriter | undefined = state.statusFields ? createPageWriter(request, state.statusFields) : undefined;
  let pages = 0;
  try {
    if (!state.done && !limitReached()) {
      // Without --limit the next pages are fetched while this one is written; with it, each request
      // asks only for the rows still needed, so pages are fetched one at a time.
      const chain = paginate((cursor, onBody) => fetchPage(cursor, pageLimit(request.pageSize, request.limit, state.rows), onBody), {
        ...(state.cursor ? { cursor: state.cursor } : {}),
        signal: ctx.signal,
        ahead: request.limit === undefined ? PAGES_AHEAD : 0,
      });
      for await (const { page } of chain) {
        if (!writer) {
          state.statusFields = request.shape.statusColumns ? [...statusFieldIds(request.fields, page.rows)] : [];
          writer = createPageWriter(request, state.statusFields);
          await writer.start(output, state);
        }
        pages += 1;
        const fresh = page.rows.filter((row) => seen.add(row.id));
        const dropped = page.rows.length - fresh.length;
        if (dropped > 0) {
          state.duplicates += dropped;
          ctx.verbose(`page ${pages}: dropped ${dropped} ${dropped === 1 ? 'row' : 'rows'} already written (duplicate row IDs)`);
        }
        await writer.page(output, state, request.limit === undefined ? fresh : fresh.slice(0, request.limit - state.rows));
        state.lastPageIds = page.rows.map((row) => row.id);
        state.cursor = page.nextCursor;
        state.done = !page.hasNextPage || limitReached();
        checkpoint?.update(state.toCheckpoint(fingerprint));
        progress.page(state.rows);
        if (state.done) break;
        ctx.signal.throwIfAborted();
      }
    }
    if (!writer) {
      writer = createPageWriter(request, []);
      if (state.bytes === 0) await writer.start(output, state);
    }
    await writer.end(output, state);
  } catch (error) {
    progress.stop();
    throw await stopped(ctx, prepared, state, error, { resumedCursor: prepared.resumed?.cursor ?? undefined, pages });
  }

  if (state.tally.total > 0) {
    progress.stop();
    const failure = reportTruncation(ctx, state.tally, request);
    if (failure) {
      await output.keep();
      await checkpoint?.remove();
      throw failure;
    }
  }
  await output.commit();
  await checkpoint?.remove();
  const elapsedMs = Date.now() - started;
  progress.succeed(
    `${state.rows.toLocaleString('en-US')} rows written to ${request.output ?? 'stdout'} in ${(elapsedMs / 1000).toFixed(1)}s`,
  );
  return { rows: state.rows, duplicates: state.duplicates, pages, truncatedCells: state.tally.total, elapsedMs };
}

/** The export stops before the end: keep what a resume needs, say how to continue, and give the error to throw. */
async function stopped(
  ctx: Context,
  prepared: PreparedOutput,
  state: ExportState,
  error: unknown,
  context: { resumedCursor: string | undefined; pages: number },
): Promise<unknown> {
  const { output, checkpoint } = prepared;
  if (!checkpoint) return error;
  if (!prepared.resumed && context.pages === 0) {
    await output.discard(); // nothing worth resuming
    return error;
  }
  await output.keep();
  await checkpoint.flush();
  return reportStop(ctx, {
    error,
    state,
    partialPath: output.partialPath ?? '',
    checkpointPath: prepared.checkpointPath ?? '',
    ...context,
  });
}

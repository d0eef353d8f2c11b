import { HashedStringSet } from '../collections/index.js';
import type { Context } from '../core/index.js';
import { type FileOpener, OutputWriteError } from '../output/index.js';
import { statusFieldIds } from '../records/index.js';
import { exportFingerprint, ExportState, type ExportFingerprint } from './checkpoint.js';
import type { ExportRequest, ExportSummary, FetchPage } from './export-request.js';
import { commitOutput, failOnTruncation, prepareOutput, stopExport, type PreparedOutput } from './output.js';
import { followNewRows, PageLoop } from './page-loop.js';
import { parquetColumns } from './parquet-columns.js';
import { createProgress, type ExportProgress } from './progress.js';
import { reportUnfit } from './report.js';
import { writerFactory } from './writers.js';

/** What an export uses besides its request; tests give a file opener whose writes fail. */
export interface ExportDeps {
  open?: FileOpener;
}

/**
 * The export shared by `tds rows` and `tds query`: pages fetched one after another through the
 * cursor chain, each row once (by ID), shaped, written as the page arrives, and checkpointed after
 * each page when writing to a file, so memory stays at a page or two however large the table.
 * `-o FILE` is locked for the run; with `follow`, new rows are written after the export until Ctrl-C.
 */
export async function runExport(ctx: Context, fetchPage: FetchPage, request: ExportRequest, deps: ExportDeps = {}): Promise<ExportSummary> {
  const started = Date.now();
  const fingerprint = exportFingerprint(request);
  const prepared = await prepareOutput(ctx, {
    path: request.output,
    resume: request.resume,
    restart: request.restart,
    fingerprint,
    ...(deps.open ? { open: deps.open } : {}),
    ...(request.format === 'parquet' ? { staged: { columns: parquetColumns(request.fields, request.shape) } } : {}),
  });
  try {
    if (prepared.completed) {
      const { rows, duplicates } = prepared.completed;
      return { rows, duplicates, pages: 0, truncatedCells: 0, elapsedMs: Date.now() - started };
    }
    return await exportPages(ctx, fetchPage, { request, prepared, fingerprint });
  } finally {
    await prepared.release();
  }
}

/** One run of an export whose output is open. */
interface ExportRun {
  request: ExportRequest;
  prepared: PreparedOutput;
  fingerprint: ExportFingerprint;
}

async function exportPages(ctx: Context, fetchPage: FetchPage, { request, prepared, fingerprint }: ExportRun): Promise<ExportSummary> {
  const started = Date.now();
  const state = prepared.resumed ? ExportState.resume(prepared.resumed) : new ExportState();
  const { pages, progress } = await startPages(ctx, request, prepared.output, state);
  // The state now, saved at once or (Parquet) when the commit of the rows it counts has ended; a failed save
  // or commit surfaces at the next step (update, flush), not here.
  const checkpoint = (after?: Promise<void>): void => {
    const snapshot = state.toCheckpoint(fingerprint);
    if (!after) prepared.checkpoint?.update(snapshot);
    else after.then(() => prepared.checkpoint?.update(snapshot)).catch(() => undefined);
  };
  const stop = async (error: unknown): Promise<unknown> => {
    progress.stop();
    // Rows a deferred writer (Parquet) holds are committed first, so the checkpoint counts every row written.
    if (!(error instanceof OutputWriteError)) await pages.commitRows(checkpoint).catch(() => undefined);
    return stopExport(ctx, prepared, { error, state, resumedCursor: prepared.resumed?.cursor ?? undefined, pages: pages.count });
  };
  try {
    await pages.run(fetchPage, { page: (written) => progress.page(written), committed: checkpoint });
  } catch (error) {
    throw await stop(error);
  }
  reportUnfit(ctx, state.unfit);
  const policy = { onTruncated: request.onTruncated, output: request.output, csv: request.csv };
  await failOnTruncation(ctx, prepared, { tally: state.tally, policy, beforeReport: () => progress.stop() });
  try {
    await commitOutput(prepared);
  } catch (error) {
    throw await stop(error);
  }
  const elapsedMs = Date.now() - started;
  if (request.format !== 'table') {
    progress.succeed(
      `${state.rows.toLocaleString('en-US')} rows written to ${request.output ?? 'stdout'} in ${(elapsedMs / 1000).toFixed(1)}s`,
    );
  }
  const summary: ExportSummary = {
    rows: state.rows,
    ...(request.local ? { tested: pages.read } : {}),
    duplicates: state.duplicates,
    pages: pages.count,
    truncatedCells: state.tally.total,
    elapsedMs,
  };
  if (!request.follow) return summary;
  const followed = await followNewRows(ctx, fetchPage, {
    source: { table: request.table, pageSize: request.pageSize, follow: request.follow, rowWindow: request.rowWindow },
    policy,
    known: pages.known,
    write: (rows, into) => pages.writeMore(rows, into),
  });
  return { ...summary, followed };
}

/** The progress line and the page loop of a run, with the writer of the export's format. */
async function startPages(
  ctx: Context,
  request: ExportRequest,
  output: PreparedOutput['output'],
  state: ExportState,
): Promise<{ pages: PageLoop; progress: ExportProgress }> {
  const unfiltered = request.search === '' && !request.filters?.rules.length && !request.local;
  const expectedRows = Math.min(request.table.rowCount, request.limit ?? Infinity);
  const progress = await createProgress(ctx, {
    ...(unfiltered ? { total: expectedRows } : {}),
    startRows: state.rows,
    pageSize: request.pageSize,
    window: request.rowWindow,
  });
  const createWriter = await writerFactory(ctx, {
    request,
    unfiltered,
    output,
    beforeRender: () => progress.stop(),
    moreRows: () => pages.more,
  });
  const pages = new PageLoop({
    ctx,
    state,
    // Sized for the whole table when every row is expected, so the ID set never grows (no peak of old + new).
    seen: new HashedStringSet(unfiltered ? expectedRows - state.rows : 0),
    paging: {
      limit: request.limit,
      pageSize: request.pageSize,
      follow: request.follow,
      ...(request.local ? { local: request.local } : {}),
    },
    statusFields: request.shape.statusColumns ? [...statusFieldIds(request.fields)] : [],
    createWriter,
  });
  return { pages, progress };
}

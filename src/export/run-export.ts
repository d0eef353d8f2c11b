import type { Context } from '../core/context.js';
import { paginate } from '../http/paginate.js';
import type { FileOpener } from '../output/atomic-file.js';
import { statusFieldIds } from '../records/status-columns.js';
import { ExportState } from './export-state.js';
import type { ExportRequest, ExportSummary, FetchPage } from './export-request.js';
import { exportFingerprint, type ExportFingerprint } from './fingerprint.js';
import { follow, remember, type Known } from './follow.js';
import { pageLimit } from './page-limit.js';
import { createPageWriter, type PageWriter } from './page-writer.js';
import { parquetColumns } from './parquet-columns.js';
import { createParquetWriter } from './parquet-writer.js';
import { prepareOutput, type PreparedOutput } from './prepare-output.js';
import { createProgress, type ExportProgress } from './progress.js';
import { reportStop, reportTruncation, reportUnfit, writeFailure } from './report.js';
import type { createTableWriter } from './table-writer.js';
import { HashedStringSet } from '../collections/hashed-string-set.js';
import { OutputWriteError } from '../output/write-error.js';
import type { RowsPage } from '../service/index.js';

/** Pages requested beyond the one being written: enough to keep the service busy, little memory. */
const PAGES_AHEAD = 2;

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
    return await exportPages(ctx, fetchPage, request, prepared, fingerprint);
  } finally {
    await prepared.release();
  }
}

async function exportPages(
  ctx: Context,
  fetchPage: FetchPage,
  request: ExportRequest,
  prepared: PreparedOutput,
  fingerprint: ExportFingerprint,
): Promise<ExportSummary> {
  const started = Date.now();
  const state = prepared.resumed ? ExportState.resume(prepared.resumed) : new ExportState();
  const unfiltered = request.search === '' && !request.filters?.rules.length;
  const expectedRows = Math.min(request.table.rowCount, request.limit ?? Infinity);
  const progress = await createProgress(ctx, {
    ...(unfiltered ? { total: expectedRows } : {}),
    startRows: state.rows,
    pageSize: request.pageSize,
    window: request.rowWindow,
  });
  // The table writer (cli-table3, emoji) is loaded only for --format table: the data formats start faster without it.
  const tableWriter = request.format === 'table' ? (await import('./table-writer.js')).createTableWriter : undefined;
  // Sized for the whole table when every row is expected, so the ID set never grows (no peak of old + new).
  const seen = new HashedStringSet(unfiltered ? expectedRows - state.rows : 0);
  const pages = new PageLoop(ctx, request, prepared, state, seen, { progress, ...(tableWriter ? { tableWriter } : {}) });
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
    if (!(error instanceof OutputWriteError)) await pages.settle(checkpoint).catch(() => undefined);
    return stopped(ctx, prepared, state, error, { resumedCursor: prepared.resumed?.cursor ?? undefined, pages: pages.count });
  };
  try {
    await pages.run(fetchPage, { page: (written) => progress.page(written), settled: checkpoint });
  } catch (error) {
    throw await stop(error);
  }
  reportUnfit(ctx, state.unfit);
  await failOnTruncation(ctx, request, prepared, state, progress);
  try {
    await commit(prepared);
  } catch (error) {
    throw await stop(error);
  }
  const elapsedMs = Date.now() - started;
  if (request.format !== 'table') {
    progress.succeed(
      `${state.rows.toLocaleString('en-US')} rows written to ${request.output ?? 'stdout'} in ${(elapsedMs / 1000).toFixed(1)}s`,
    );
  }
  const summary = { rows: state.rows, duplicates: state.duplicates, pages: pages.count, truncatedCells: state.tally.total, elapsedMs };
  return request.follow ? { ...summary, followed: await followNewRows(ctx, fetchPage, request, pages) } : summary;
}

/** The pages of one run of the export, written as they come, each row once. */
class PageLoop {
  /** Pages fetched by this run. */
  count = 0;
  /** Rows were left unread or unwritten because of -n. */
  more = false;
  /** For --follow: the IDs written and the newest creation time. */
  readonly known: Known;
  private writer: PageWriter | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly request: ExportRequest,
    private readonly prepared: PreparedOutput,
    private readonly state: ExportState,
    seen: HashedStringSet,
    private readonly parts: { progress: ExportProgress; tableWriter?: typeof createTableWriter },
  ) {
    for (const id of state.lastPageIds) seen.add(id);
    this.known = { seen, newestMs: undefined };
    if (state.statusFields) this.writer = this.createWriter(state.statusFields);
  }

  /**
   * Every page still to write, then the end of the output; `on.page` after each page is written, and
   * `on.settled` when a checkpoint may count every row written so far: after each page, or for a
   * deferred writer (Parquet) when a commit of them has begun (`after`: it ends) and at the end.
   */
  async run(fetchPage: FetchPage, on: { page: (rows: number) => void; settled: (after?: Promise<void>) => void }): Promise<void> {
    const { request, state } = this;
    if (!state.done && !this.limitReached()) {
      // Without --limit the next pages are fetched while this one is written; with it, each request
      // asks only for the rows still needed, so pages are fetched one at a time.
      const chain = paginate((cursor, onBody) => fetchPage(cursor, pageLimit(request.pageSize, request.limit, state.rows), onBody), {
        ...(state.cursor ? { cursor: state.cursor } : {}),
        signal: this.ctx.signal,
        ahead: request.limit === undefined ? PAGES_AHEAD : 0,
      });
      for await (const { page } of chain) {
        await this.write(page);
        on.page(state.rows);
        const deferred = this.writer?.deferred;
        if (!deferred) on.settled();
        else {
          const covering = deferred.covering();
          if (covering) on.settled(covering);
        }
        if (state.done) break;
        this.ctx.signal.throwIfAborted();
      }
    }
    const writer = this.writer ?? this.createWriter([]);
    if (!this.writer && state.bytes === 0) await writer.start(state);
    this.writer = writer;
    await writer.end(state);
    // a deferred writer commits its last rows at the end: the checkpoint of the whole export is taken now
    if (writer.deferred) on.settled();
  }

  /** A deferred writer (Parquet) commits the rows it holds; `settled` then takes the checkpoint. */
  async settle(settled: () => void): Promise<void> {
    const deferred = this.writer?.deferred;
    if (!deferred) return;
    await deferred.settle();
    settled();
  }

  /** Rows written after the export (--follow), in the export's format, counted in `into`. */
  async writeMore(rows: RowsPage['rows'], into: ExportState): Promise<void> {
    await this.writer!.page(into, rows);
  }

  private createWriter(statusFields: readonly string[]): PageWriter {
    const { request } = this;
    const { output } = this.prepared;
    if (output.kind === 'staged') return createParquetWriter(request, output);
    const { format } = request;
    // prepareOutput stages every parquet export, so a byte output never meets it
    if (format === 'parquet') throw new Error('a parquet export needs a staged output');
    if (format !== 'table') return createPageWriter({ ...request, format }, statusFields, output);
    const { progress, tableWriter } = this.parts;
    return tableWriter!(this.ctx, request, {
      statusFields,
      output,
      beforeRender: () => progress.stop(),
      moreRows: () => this.more,
    });
  }

  private async write(page: RowsPage): Promise<void> {
    const { request, state } = this;
    if (!this.writer) {
      // the schema fixes the status columns (and so the CSV header); the checkpoint keeps them for a resume
      state.statusFields = request.shape.statusColumns ? [...statusFieldIds(request.fields)] : [];
      this.writer = this.createWriter(state.statusFields);
      await this.writer.start(state);
    }
    this.count += 1;
    const fresh = page.rows.filter((row) => this.known.seen.add(row.id));
    const dropped = page.rows.length - fresh.length;
    if (dropped > 0) {
      state.duplicates += dropped;
      this.ctx.verbose(`page ${this.count}: dropped ${dropped} ${dropped === 1 ? 'row' : 'rows'} already written (duplicate row IDs)`);
    }
    const taken = request.limit === undefined ? fresh : fresh.slice(0, request.limit - state.rows);
    await this.writer.page(state, taken);
    if (request.follow) remember(this.known, taken);
    state.lastPageIds = page.rows.map((row) => row.id);
    state.cursor = page.nextCursor;
    state.done = !page.hasNextPage || this.limitReached();
    if (taken.length < fresh.length || (this.limitReached() && page.hasNextPage)) this.more = true;
  }

  private limitReached(): boolean {
    return this.request.limit !== undefined && this.state.rows >= this.request.limit;
  }
}

/** Every page is written: the truncation report; with --on-truncated error, the file is kept as FILE.partial and exit 8. */
async function failOnTruncation(
  ctx: Context,
  request: ExportRequest,
  prepared: PreparedOutput,
  state: ExportState,
  progress: ExportProgress,
): Promise<void> {
  if (state.tally.total === 0) return;
  progress.stop();
  const failure = reportTruncation(ctx, state.tally, request);
  if (!failure) return;
  await prepared.output.keepWhole();
  await prepared.checkpoint?.remove();
  throw failure;
}

/**
 * FILE.partial becomes FILE. The checkpoint saying that the last page was written is on disk first,
 * and is removed only after the rename, so a kill at any moment leaves a state the next run reads:
 * before the rename, --resume ends the file; after it, the checkpoint is recognised as a completed
 * export (FILE present, FILE.partial gone).
 */
async function commit(prepared: PreparedOutput): Promise<void> {
  await prepared.checkpoint?.flush();
  await prepared.output.commit();
  await prepared.checkpoint?.remove();
}

/** --follow: the rows created after the export, until Ctrl-C. */
async function followNewRows(ctx: Context, fetchPage: FetchPage, request: ExportRequest, pages: PageLoop): Promise<number> {
  const paceMs = request.rowWindow.perMs / request.rowWindow.requests;
  const everyMs = Math.max(request.follow!.everyMs, paceMs);
  if (everyMs > request.follow!.everyMs) {
    ctx.io.stderr.write(
      `tds: polling every ${(everyMs / 1000).toLocaleString('en-US')}s, not more often: the service allows ${request.rowWindow.requests} row reads a minute\n`,
    );
  }
  if (ctx.io.stderrIsTTY)
    ctx.io.stderr.write(
      `tds: following ${request.table.name} for new rows every ${(everyMs / 1000).toLocaleString('en-US')}s (Ctrl-C to stop)\n`,
    );
  // The rows written while following, and their cut cells, reported at the end as the export's are.
  const followed = new ExportState();
  const count = await follow(ctx, fetchPage, pages.known, {
    everyMs,
    pageSize: request.pageSize,
    write: (rows) => pages.writeMore(rows, followed),
  });
  if (followed.tally.total > 0) {
    const failure = reportTruncation(ctx, followed.tally, request);
    if (failure) throw failure;
  }
  return count;
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
  if (error instanceof OutputWriteError) return keepAfterWriteFailure(prepared, error);
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

/**
 * A write was refused (a full disk): what the checkpoint file holds is what a resume continues from,
 * whatever else still fails now. The partial file is kept with it (cut back to its bytes on resume),
 * or removed when no checkpoint was ever written.
 */
async function keepAfterWriteFailure(prepared: PreparedOutput, error: OutputWriteError): Promise<OutputWriteError> {
  const { output, checkpoint } = prepared;
  await output.keep().catch(() => undefined);
  await checkpoint?.flush().catch(() => undefined);
  const kept = checkpoint?.onDisk;
  if (!kept) await output.discard();
  return writeFailure(error, kept ? { rows: kept.rows, partialPath: output.partialPath ?? '' } : undefined);
}

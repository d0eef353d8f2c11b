import type { Context } from '../core/context.js';
import { paginate } from '../http/paginate.js';
import { statusFieldIds } from '../records/status-columns.js';
import { ExportState } from './export-state.js';
import type { ExportRequest, ExportSummary, FetchPage } from './export-request.js';
import { exportFingerprint } from './fingerprint.js';
import { pageLimit } from './page-limit.js';
import { createPageWriter, type PageWriter } from './page-writer.js';
import { prepareOutput, type PreparedOutput } from './prepare-output.js';
import { createProgress, type ExportProgress } from './progress.js';
import { reportStop, reportTruncation } from './report.js';
import { HashedStringSet } from '../collections/hashed-string-set.js';
import type { RowsPage } from '../spec/index.js';

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
  const state = prepared.resumed ? ExportState.resume(prepared.resumed) : new ExportState();
  const unfiltered = request.search === '' && !request.filters?.rules.length;
  const expectedRows = Math.min(request.table.rowCount, request.limit ?? Infinity);
  const progress = await createProgress(ctx, {
    ...(unfiltered ? { total: expectedRows } : {}),
    startRows: state.rows,
    pageSize: request.pageSize,
    window: request.rowWindow,
  });
  // Sized for the whole table when every row is expected, so the ID set never grows (no peak of old + new).
  const pages = new PageLoop(ctx, request, prepared, state, new HashedStringSet(unfiltered ? expectedRows - state.rows : 0));
  try {
    await pages.run(fetchPage, (written) => {
      prepared.checkpoint?.update(state.toCheckpoint(fingerprint));
      progress.page(written);
    });
  } catch (error) {
    progress.stop();
    throw await stopped(ctx, prepared, state, error, { resumedCursor: prepared.resumed?.cursor ?? undefined, pages: pages.count });
  }
  await complete(ctx, request, prepared, state, progress);
  const elapsedMs = Date.now() - started;
  progress.succeed(
    `${state.rows.toLocaleString('en-US')} rows written to ${request.output ?? 'stdout'} in ${(elapsedMs / 1000).toFixed(1)}s`,
  );
  return { rows: state.rows, duplicates: state.duplicates, pages: pages.count, truncatedCells: state.tally.total, elapsedMs };
}

/** The pages of one run of the export, written as they come, each row once. */
class PageLoop {
  /** Pages fetched by this run. */
  count = 0;
  private writer: PageWriter | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly request: ExportRequest,
    private readonly prepared: PreparedOutput,
    private readonly state: ExportState,
    private readonly seen: HashedStringSet,
  ) {
    for (const id of state.lastPageIds) seen.add(id);
    if (state.statusFields) this.writer = createPageWriter(request, state.statusFields);
  }

  /** Every page still to write, then the end of the output; `onPage` after each page is written. */
  async run(fetchPage: FetchPage, onPage: (rows: number) => void): Promise<void> {
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
        onPage(state.rows);
        if (state.done) break;
        this.ctx.signal.throwIfAborted();
      }
    }
    const writer = this.writer ?? createPageWriter(request, []);
    if (!this.writer && state.bytes === 0) await writer.start(this.prepared.output, state);
    await writer.end(this.prepared.output, state);
  }

  private async write(page: RowsPage): Promise<void> {
    const { request, state } = this;
    const { output } = this.prepared;
    if (!this.writer) {
      // the first page fixes the status columns (and so the CSV header) for the whole export
      state.statusFields = request.shape.statusColumns ? [...statusFieldIds(request.fields, page.rows)] : [];
      this.writer = createPageWriter(request, state.statusFields);
      await this.writer.start(output, state);
    }
    this.count += 1;
    const fresh = page.rows.filter((row) => this.seen.add(row.id));
    const dropped = page.rows.length - fresh.length;
    if (dropped > 0) {
      state.duplicates += dropped;
      this.ctx.verbose(`page ${this.count}: dropped ${dropped} ${dropped === 1 ? 'row' : 'rows'} already written (duplicate row IDs)`);
    }
    await this.writer.page(output, state, request.limit === undefined ? fresh : fresh.slice(0, request.limit - state.rows));
    state.lastPageIds = page.rows.map((row) => row.id);
    state.cursor = page.nextCursor;
    state.done = !page.hasNextPage || this.limitReached();
  }

  private limitReached(): boolean {
    return this.request.limit !== undefined && this.state.rows >= this.request.limit;
  }
}

/** Every page is written: the truncation report (exit 8 with --on-truncated error), then the file renamed into place. */
async function complete(
  ctx: Context,
  request: ExportRequest,
  prepared: PreparedOutput,
  state: ExportState,
  progress: ExportProgress,
): Promise<void> {
  const { output, checkpoint } = prepared;
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

import { setTimeout as sleep } from 'node:timers/promises';
import type { HashedStringSet } from '../collections/index.js';
import type { Context } from '../core/index.js';
import { paginate } from '../http/index.js';
import type { Row, RowsPage } from '../service/index.js';
import { ExportState } from './checkpoint.js';
import { pageLimit, type ExportRequest, type FetchPage } from './export-request.js';
import type { PageWriter } from './output.js';
import { reportTruncation, type TruncationPolicy } from './report.js';

/** Pages requested beyond the one being written: enough to keep the service busy, little memory. */
const PAGES_AHEAD = 2;

/** What the page loop of one run is given. */
export interface PageLoopParts {
  ctx: Context;
  /** Where the export stands (a resumed one's from its checkpoint); the loop moves it on. */
  state: ExportState;
  /** IDs already written, sized by the caller; the rows of a resumed export's last page are added. */
  seen: HashedStringSet;
  /** -n, the page size, --follow (whose rows written are remembered), and the tests made here on the rows read. */
  paging: Pick<ExportRequest, 'limit' | 'pageSize' | 'follow' | 'local'>;
  /** The columns given status keys in a fresh output (the first page fixes them in the state). */
  statusFields: readonly string[];
  /** The writer of the export's format and output, for these status columns. */
  createWriter(statusFields: readonly string[]): PageWriter;
}

/** What the loop tells as it goes: after each page written, and when a checkpoint may count every row written. */
export interface PageEvents {
  page(rows: number): void;
  committed(after?: Promise<void>): void;
}

/** The pages of one run of the export, written as they come, each row once. */
export class PageLoop {
  /** Pages fetched by this run. */
  count = 0;
  /** Rows were left unread or unwritten because of -n. */
  more = false;
  /** Rows the service returned to this run (before `local`'s tests). */
  read = 0;
  /** For --follow: the IDs written and the newest creation time. */
  readonly known: Known;
  private writer: PageWriter | undefined;

  constructor(private readonly parts: PageLoopParts) {
    const { state } = parts;
    for (const id of state.lastPageIds) parts.seen.add(id);
    this.known = { seen: parts.seen, newestMs: undefined };
    if (state.statusFields) this.writer = parts.createWriter(state.statusFields);
  }

  /**
   * Every page still to write, then the end of the output; `on.page` after each page is written, and
   * `on.committed` when a checkpoint may count every row written so far: after each page, or for a
   * deferred writer (Parquet) when a commit of them has begun (`after`: it ends) and at the end.
   */
  async run(fetchPage: FetchPage, on: PageEvents): Promise<void> {
    const { ctx, state, paging } = this.parts;
    if (!state.done && !this.limitReached()) {
      // Without --limit the next pages are fetched while this one is written; with it, each request
      // asks only for the rows still needed, so pages are fetched one at a time.
      // rows tested here may not match: full pages are asked for whatever -n still needs
      const needed = (): number => (paging.local ? paging.pageSize : pageLimit(paging.pageSize, paging.limit, state.rows));
      const chain = paginate((cursor, onBody) => fetchPage(cursor, needed(), onBody), {
        ...(state.cursor ? { cursor: state.cursor } : {}),
        signal: ctx.signal,
        ahead: paging.limit === undefined ? PAGES_AHEAD : 0,
      });
      for await (const { page } of chain) {
        await this.write(page);
        on.page(state.rows);
        const deferred = this.writer?.deferred;
        if (!deferred) on.committed();
        else {
          const covering = deferred.covering();
          if (covering) on.committed(covering);
        }
        if (state.done) break;
        ctx.signal.throwIfAborted();
      }
    }
    const writer = this.writer ?? this.parts.createWriter([]);
    if (!this.writer && state.bytes === 0) await writer.start(state);
    this.writer = writer;
    await writer.end(state);
    // a deferred writer commits its last rows at the end: the checkpoint of the whole export is taken now
    if (writer.deferred) on.committed();
  }

  /** A deferred writer (Parquet) commits the rows it holds; `committed` then takes the checkpoint. */
  async commitRows(committed: () => void): Promise<void> {
    const deferred = this.writer?.deferred;
    if (!deferred) return;
    await deferred.commitRows();
    committed();
  }

  /** Rows written after the export (--follow), in the export's format, counted in `into`. */
  async writeMore(rows: RowsPage['rows'], into: ExportState): Promise<void> {
    await this.writer!.page(into, rows);
  }

  private async write(page: RowsPage): Promise<void> {
    const { ctx, state, paging } = this.parts;
    if (!this.writer) {
      // the schema fixes the status columns (and so the CSV header); the checkpoint keeps them for a resume
      state.statusFields = [...this.parts.statusFields];
      this.writer = this.parts.createWriter(state.statusFields);
      await this.writer.start(state);
    }
    this.count += 1;
    this.read += page.rows.length;
    const local = paging.local;
    const rows = local ? page.rows.filter((row) => local.test(row)) : page.rows;
    const fresh = rows.filter((row) => this.known.seen.add(row.id));
    const dropped = rows.length - fresh.length;
    if (dropped > 0) {
      state.duplicates += dropped;
      ctx.verbose(`page ${this.count}: dropped ${dropped} ${dropped === 1 ? 'row' : 'rows'} already written (duplicate row IDs)`);
    }
    const taken = paging.limit === undefined ? fresh : fresh.slice(0, paging.limit - state.rows);
    await this.writer.page(state, taken);
    if (paging.follow) remember(this.known, taken);
    state.lastPageIds = page.rows.map((row) => row.id);
    state.cursor = page.nextCursor;
    state.done = !page.hasNextPage || this.limitReached();
    if (taken.length < fresh.length || (this.limitReached() && page.hasNextPage)) this.more = true;
  }

  private limitReached(): boolean {
    const { limit } = this.parts.paging;
    return limit !== undefined && this.parts.state.rows >= limit;
  }
}

// `tds rows TABLE --follow`: after the export, the newest page is read every --every seconds and the
// rows created since are written. Without a search, the service lists rows newest first, so the rows
// not yet written are at the head of the list: pages are read from the newest until a row that was
// written already (or one created before the newest written), which for an idle table is one request.

/** What the follow knows of the rows written so far. */
export interface Known {
  /** IDs of the rows written (and of the rows read past -n): never written again. */
  seen: HashedStringSet;
  /** The creation time (ms) of the newest row written; rows created before it are not new. Undefined before the first. */
  newestMs: number | undefined;
}

/**
 * The rows created since the last look, oldest first (so the output grows in creation order).
 * Pages of `pageSize` are read newest first until a known row, a row created before the newest known
 * one, or the end of the table: a burst of more than a page is read completely.
 */
export async function newRowsSince(fetchPage: FetchPage, known: Known, pageSize: number, signal?: AbortSignal): Promise<Row[]> {
  const found: Row[] = [];
  const ids = new Set<string>();
  const pages = paginate((cursor, onBody) => fetchPage(cursor, pageSize, onBody), { ahead: 0, ...(signal ? { signal } : {}) });
  walk: for await (const { page } of pages) {
    for (const row of page.rows) {
      if (known.seen.has(row.id) || createdBefore(row, known.newestMs)) break walk;
      if (!ids.has(row.id)) found.push(row);
      ids.add(row.id);
    }
  }
  return found.reverse();
}

function createdBefore(row: Row, newestMs: number | undefined): boolean {
  if (newestMs === undefined) return false;
  const created = Date.parse(row.createdAt);
  return Number.isFinite(created) && created < newestMs;
}

/** Adds written rows to what the follow knows. */
export function remember(known: Known, rows: readonly Row[]): void {
  for (const row of rows) {
    known.seen.add(row.id);
    const created = Date.parse(row.createdAt);
    if (Number.isFinite(created) && (known.newestMs === undefined || created > known.newestMs)) known.newestMs = created;
  }
}

export interface FollowOptions {
  everyMs: number;
  pageSize: number;
  /** Writes rows (oldest first) to the output, in the export's format. */
  write(rows: Row[]): Promise<void>;
}

/**
 * Polls until Ctrl-C (the context's signal), which ends the follow normally: whatever was found
 * has been written, and a poll cut short had written nothing yet. Polls start `everyMs` apart (a
 * burst that takes longer starts the next one at once). Returns the rows written.
 */
export async function follow(ctx: Context, fetchPage: FetchPage, known: Known, options: FollowOptions): Promise<number> {
  let written = 0;
  let next = Date.now() + options.everyMs;
  while (!ctx.signal.aborted) {
    try {
      await sleep(Math.max(0, next - Date.now()), undefined, { signal: ctx.signal });
      next = Date.now() + options.everyMs;
      const rows = await newRowsSince(fetchPage, known, options.pageSize, ctx.signal);
      if (rows.length === 0) continue;
      await options.write(rows);
      remember(known, rows);
      written += rows.length;
      ctx.verbose(`tds: ${rows.length} new ${rows.length === 1 ? 'row' : 'rows'} (${written} while following)`);
    } catch (error) {
      if (ctx.signal.aborted) break;
      throw error;
    }
  }
  return written;
}

/** What following a table after its export uses: where to poll and how often, and how the rows are written. */
export interface FollowExport {
  source: Pick<ExportRequest, 'table' | 'pageSize' | 'rowWindow'> & { follow: { everyMs: number } };
  policy: TruncationPolicy;
  /** The rows the export wrote. */
  known: Known;
  /** Writes rows in the export's format, counted in `into`. */
  write(rows: Row[], into: ExportState): Promise<void>;
}

/** --follow: the rows created after the export, until Ctrl-C; returns how many were written. */
export async function followNewRows(ctx: Context, fetchPage: FetchPage, run: FollowExport): Promise<number> {
  const { table, pageSize, rowWindow } = run.source;
  const asked = run.source.follow.everyMs;
  const everyMs = Math.max(asked, rowWindow.perMs / rowWindow.requests);
  if (everyMs > asked) {
    ctx.io.stderr.write(
      `tds: polling every ${(everyMs / 1000).toLocaleString('en-US')}s, not more often: the service allows ${rowWindow.requests} row reads a minute\n`,
    );
  }
  if (ctx.io.stderrIsTTY)
    ctx.io.stderr.write(`tds: following ${table.name} for new rows every ${(everyMs / 1000).toLocaleString('en-US')}s (Ctrl-C to stop)\n`);
  // The rows written while following, and their cut cells, reported at the end as the export's are.
  const followed = new ExportState();
  const count = await follow(ctx, fetchPage, run.known, { everyMs, pageSize, write: (rows) => run.write(rows, followed) });
  if (followed.tally.total > 0) {
    const failure = reportTruncation(ctx, followed.tally, run.policy);
    if (failure) throw failure;
  }
  return count;
}

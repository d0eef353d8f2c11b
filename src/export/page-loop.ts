import type { HashedStringSet } from '../collections/hashed-string-set.js';
import type { Context } from '../core/context.js';
import { paginate } from '../http/paginate.js';
import type { RowsPage } from '../service/index.js';
import type { ExportSource, FetchPage } from './export-request.js';
import type { ExportState } from './export-state.js';
import { remember, type Known } from './follow.js';
import { pageLimit } from './page-limit.js';
import type { PageWriter } from './page-writer.js';

/** Pages requested beyond the one being written: enough to keep the service busy, little memory. */
const PAGES_AHEAD = 2;

/** What the page loop of one run is given. */
export interface PageLoopParts {
  ctx: Context;
  /** Where the export stands (a resumed one's from its checkpoint); the loop moves it on. */
  state: ExportState;
  /** IDs already written, sized by the caller; the rows of a resumed export's last page are added. */
  seen: HashedStringSet;
  /** -n, the page size, and --follow (whose rows written are remembered). */
  paging: Pick<ExportSource, 'limit' | 'pageSize' | 'follow'>;
  /** The columns given status keys in a fresh output (the first page fixes them in the state). */
  statusFields: readonly string[];
  /** The writer of the export's format and output, for these status columns. */
  createWriter(statusFields: readonly string[]): PageWriter;
}

/** What the loop tells as it goes: after each page written, and when a checkpoint may count every row written. */
export interface PageEvents {
  page(rows: number): void;
  settled(after?: Promise<void>): void;
}

/** The pages of one run of the export, written as they come, each row once. */
export class PageLoop {
  /** Pages fetched by this run. */
  count = 0;
  /** Rows were left unread or unwritten because of -n. */
  more = false;
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
   * `on.settled` when a checkpoint may count every row written so far: after each page, or for a
   * deferred writer (Parquet) when a commit of them has begun (`after`: it ends) and at the end.
   */
  async run(fetchPage: FetchPage, on: PageEvents): Promise<void> {
    const { ctx, state, paging } = this.parts;
    if (!state.done && !this.limitReached()) {
      // Without --limit the next pages are fetched while this one is written; with it, each request
      // asks only for the rows still needed, so pages are fetched one at a time.
      const chain = paginate((cursor, onBody) => fetchPage(cursor, pageLimit(paging.pageSize, paging.limit, state.rows), onBody), {
        ...(state.cursor ? { cursor: state.cursor } : {}),
        signal: ctx.signal,
        ahead: paging.limit === undefined ? PAGES_AHEAD : 0,
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
        ctx.signal.throwIfAborted();
      }
    }
    const writer = this.writer ?? this.parts.createWriter([]);
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

  private async write(page: RowsPage): Promise<void> {
    const { ctx, state, paging } = this.parts;
    if (!this.writer) {
      // the schema fixes the status columns (and so the CSV header); the checkpoint keeps them for a resume
      state.statusFields = [...this.parts.statusFields];
      this.writer = this.parts.createWriter(state.statusFields);
      await this.writer.start(state);
    }
    this.count += 1;
    const fresh = page.rows.filter((row) => this.known.seen.add(row.id));
    const dropped = page.rows.length - fresh.length;
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

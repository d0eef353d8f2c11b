import { type Context, TdsError } from '../core/index.js';
import { quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { type ApiClient, paginate } from '../http/index.js';
import { typedRowReader, type TypedColumn, type TypedValue } from '../records/index.js';
import { PAGE_LIMIT_MAX, type Row, type RowsPage, type Table } from '../service/index.js';
import type { MirrorAccess } from './mirror-db.js';
import { KeyRefused, MirrorWriter } from './mirror-writer.js';
import { reachesWatermark, serviceDate, unseenRows } from './pass.js';
import { COMPLETE_PASS, type PassState, type TableState } from './table-state.js';

/** Told after each page is written (for the progress line). */
export interface PassProgress {
  /** Rows of the pass so far, after each page written. */
  page(rows: number): void;
  /** The rows an interrupted pass had saved, when this one continues it (not read by this run). */
  continues?(rows: number): void;
}

export interface ReadPagesOptions {
  ctx: Context;
  client: ApiClient;
  /** Held for each group written (mirror-db.ts); a follower's (releasesEachUse), never while a page is awaited. */
  mirror: MirrorAccess;
  table: Table;
  state: TableState;
  pass: PassState;
  columns: readonly TypedColumn[];
  /** The fields the columns were planned for: a row with a cell of another field means the schema moved. */
  fieldIds: ReadonlySet<string>;
  say(line: string): void;
  progress?: PassProgress;
  /**
   * The table's row count as the service gave it just before this pass (undefined when it is older):
   * an incremental pass that reached its watermark with the mirror still short of it reads further back.
   */
  serviceRowCount?: number;
  /** This sync's ID: the `_syncId` of the versions it writes, the `_replacedBy` of those it replaces. */
  syncId: number;
  /** Told the Date of each answer (the service's clock), as ISO text. */
  onServiceTime?(at: string): void;
  /** false: no row is appended straight into the table (the pass reads again what the primary key refused so). */
  straight?: boolean;
}

/** Pages requested ahead of the one being written in a full pass (an incremental pass stops at its watermark). */
const PAGES_AHEAD = 2;
/**
 * A group (one transaction) takes the rows read while the last one was written, once there are this
 * many or the last began this long ago: each commit has a cost of its own (DuckDB syncs its WAL, merges
 * the group's keys into the primary key's index, and checkpoints now and then), so a fast read is
 * written in few large groups, and a slow one (limiter by the row-read limit) page by page. Rows wait in
 * DuckDB (mirror-writer.ts), not in the JavaScript heap: a large group costs little memory. On 1,000,000
 * rows read without limits, groups of 32,768 took 15 s where groups of 8,192 took 19-21 s.
 */
const GROUP_ROWS = 32_768;
const GROUP_MS = 1_000;
/**
 * Rows waiting for the database before reading pauses: DuckDB's commits set the speed of a fast read,
 * and a crash loses at most these (the next sync reads them again from the saved cursor). Twice this
 * for a pass that only appends stays below 204,800, past which DuckDB's appender would hand rows
 * appended straight into a table to it outside their group's transaction (mirror-writer.ts).
 */
const MAX_WAITING_ROWS = 2 * GROUP_ROWS;
/**
 * A pass that only appends (its table holds only its rows: a first sync) is written in groups twice as
 * large. Measured on 1,000,000 rows (paired runs): groups of 49,152 to 98,304 rows took a little less CPU
 * than 32,768 and peaked 5-10 MB lower (255-263 MB); a whole row group of DuckDB's (122,880, which DuckDB
 * writes straight to the file) took no less CPU and peaked at 296-304 MB. With the rows appended straight
 * into the table (mirror-writer.ts), groups of 32,768 with at most 65,536 rows waiting peaked no lower
 * and took 6-20 % more CPU (paired runs on a loaded machine).
 */
const APPEND_GROUP_ROWS = 2 * GROUP_ROWS;

/** Whether `waiting` rows, read in the `sinceMs` since the last group was sealed, make a group now. */
export function groupDue(waiting: number, sinceMs: number, appendsOnly: boolean): boolean {
  return waiting >= (appendsOnly ? APPEND_GROUP_ROWS : GROUP_ROWS) || sinceMs >= GROUP_MS;
}

/**
 * Reads the pass's pages newest first, from its saved cursor, and writes them as they come: while one
 * group of pages is written (a transaction), the next pages are read and wait; the next transaction
 * takes them all. An incremental pass ends at the page that reaches below the watermark.
 */
export async function readPages(options: ReadPagesOptions): Promise<void> {
  const { state } = options;
  const target = { table: state.mirrorTable, historyTable: state.historyTable!, syncId: options.syncId };
  const { mirror } = options;
  const writer = await mirror.use(async (db) => {
    const opened = new MirrorWriter(db, target, options.columns);
    await opened.open({
      tableId: state.tableId,
      inserted: options.pass.inserted,
      ...(options.straight === false ? { straight: false } : {}),
    });
    return opened;
  });
  try {
    return await readInto(writer, options);
  } catch (error) {
    if (!(error instanceof KeyRefused)) throw error;
  } finally {
    await mirror.use(() => writer.close()).catch(() => undefined);
  }
  // rows moved while the pass read them (a row read twice): the pages since the progress saved last, again, the general way
  return readPages({ ...options, straight: false });
}

async function readInto(writer: MirrorWriter, options: ReadPagesOptions): Promise<void> {
  const { pass, state, ctx } = options;
  const read = typedRowReader(options.columns);
  const group = new GroupedWrites(writer, state, options.mirror);
  let fresh = pass.cursor === null;
  let short = false;
  if (!fresh) options.progress?.continues?.(pass.rows);
  try {
    for await (const { page } of paginate((cursor, onBody) => fetch(options, cursor, onBody), {
      ...(pass.cursor !== null ? { cursor: pass.cursor } : {}),
      signal: ctx.signal,
      // a follower's pages are not read ahead: none is requested while the file is held for a write
      ahead: pass.mode === COMPLETE_PASS && !options.mirror.releasesEachUse ? PAGES_AHEAD : 0,
    })) {
      fresh = true;
      checkFields(page, options.fieldIds);
      const rows = page.rows.map((row) => read(row, () => (pass.unfit += 1)));
      notePage(pass, page);
      const last = page.rows.at(-1);
      const atWatermark = pass.mode === 'incremental' && last !== undefined && reachesWatermark(last.createdAt, state.watermark);
      const listEnds = !page.hasNextPage;
      const done = listEnds || (atWatermark && options.serviceRowCount === undefined);
      await group.add(rows, done ? null : page.nextCursor, () => options.progress?.page(pass.rows));
      if (done) break;
      if (atWatermark) {
        // the mirror must not stay short of the service's count: rows below the watermark that no
        // pass has seen (a watermark set too high, rows created with an old time) are read too
        await group.flush();
        const missing = options.serviceRowCount! - (await rowsAfterPass(options));
        if (missing <= 0) break;
        if (!short) {
          options.say(
            `${state.mirrorTable}: ${missing.toLocaleString('en-US')} of the service's rows are not in the mirror after reading down to its watermark; reading further back`,
          );
          short = true;
        }
      }
      ctx.signal.throwIfAborted();
    }
    await group.flush();
    return;
  } catch (error) {
    await group.writesDone();
    // the pass goes back to the progress saved with the last group written (the group refused is not in the mirror)
    if (error instanceof KeyRefused) Object.assign(pass, group.saved);
    if (error instanceof UnknownField || error instanceof KeyRefused) throw error;
    // a saved cursor refused before any page came: it expired
    if (!fresh && error instanceof TdsError && error.status === 400) return restart(options, error);
    throw error;
  }
}

function fetch(options: ReadPagesOptions, cursor: string | undefined, onBody?: (body: string) => void): Promise<RowsPage> {
  const { pass } = options;
  pass.requests += 1;
  return options.client.rowsPage(options.table.id, { limit: PAGE_LIMIT_MAX, ...(cursor ? { cursor } : {}) }, (body, date) => {
    const at = serviceDate(date);
    // the pass begins on the service's clock with its first answer (see pass.ts)
    if (cursor === undefined && pass.startedAt === null) pass.startedAt = at;
    if (at !== null) options.onServiceTime?.(at);
    onBody?.(body);
  });
}

/** The mirror table's rows once the pass ends (its deletions at the end taken off). */
async function rowsAfterPass({ mirror, state, pass }: ReadPagesOptions): Promise<number> {
  const reader = await mirror.use((db) =>
    db.connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n FROM ${quoteIdent(state.mirrorTable)} WHERE NOT (${unseenRows(state.tableId, pass)})`,
    ),
  );
  return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
}

/** Thrown (before anything of the page is written) when a row holds a field the schema did not have. */
export class UnknownField extends Error {
  constructor(readonly fieldId: string) {
    super(`a row holds field ${fieldId}, which the schema read before does not have`);
  }
}

function checkFields(page: RowsPage, known: ReadonlySet<string>): void {
  for (const row of page.rows) for (const fieldId in row.cells) if (!known.has(fieldId)) throw new UnknownField(fieldId);
}

function notePage(pass: PassState, page: RowsPage): void {
  const first: Row | undefined = page.rows[0];
  const last: Row | undefined = page.rows.at(-1);
  if (first && pass.top === null) pass.top = first.createdAt;
  // no Date from the service: its newest row's creation time is the latest of its clock that the pass knows
  if (pass.startedAt === null) pass.startedAt = pass.top;
  if (last && (pass.oldest === null || Date.parse(last.createdAt) < Date.parse(pass.oldest))) pass.oldest = last.createdAt;
  pass.rows += page.rows.length;
}

/** The saved cursor is refused (cursors do not last for ever): the pass starts over from the newest row. */
async function restart(options: ReadPagesOptions, error: TdsError): Promise<void> {
  options.say(
    `${options.state.mirrorTable}: the service no longer accepts the saved cursor (${error.message}); the ${options.pass.mode} pass starts over`,
  );
  await options.mirror.use((db) => db.connection.run(`DELETE FROM _tds_pass WHERE table_id = ${quoteLiteral(options.state.tableId)}`));
  Object.assign(options.pass, { cursor: null, top: null, oldest: null, requests: 0 });
  return readPages(options);
}

/**
 * Writes groups of pages: the rows of every page that arrived while the last transaction ran go into
 * the next one, with the cursor after the last of them (so the saved progress always matches the
 * rows saved).
 */
class GroupedWrites {
  private callbacks: Array<() => void> = [];
  private writing: Promise<void> | undefined;
  /** A page being appended: a group is sealed only between appends (its rows and its saved progress alike). */
  private appending: Promise<void> | undefined;
  private failure: unknown;
  /** When the last group began (the first page is written at once, so the pass is saved early). */
  private lastStart = -Infinity;
  /** The pass as the mirror has it saved: as it began here, then as the last group written saved it. */
  saved: PassState;

  constructor(
    private readonly writer: MirrorWriter,
    private readonly state: TableState,
    private readonly mirror: MirrorAccess,
  ) {
    this.saved = { ...state.pass! };
  }

  async add(rows: TypedValue[][], cursor: string | null, onWritten: () => void): Promise<void> {
    if (this.failure) throw this.failure;
    // each page at once into DuckDB: typed rows held until their group is written would grow the heap
    const appending = this.writer.append(rows);
    this.appending = appending;
    try {
      await appending;
    } finally {
      this.appending = undefined;
    }
    this.callbacks.push(onWritten);
    this.state.pass!.cursor = cursor;
    // reading waits for a write under way, never for the one these rows just made due; a follower's
    // waits for that one too, so that its next page is requested with the file let go (mirror-db.ts)
    const under = this.writing;
    if (this.due()) this.writing ??= this.drain();
    if (this.mirror.releasesEachUse) await this.writing;
    else if (under && this.writer.waiting >= (this.writer.appendsOnly ? 2 : 1) * MAX_WAITING_ROWS) await under;
    if (this.failure) throw this.failure;
  }

  /** Writes every row added so far. */
  async flush(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
    // with nothing to write, drain would end (and clear `writing`) before it is assigned, and stay there
    if (this.callbacks.length === 0) return;
    this.writing = this.drain(true);
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Waits for a write in progress, whatever its outcome (an interrupted read still saves what it wrote). */
  async writesDone(): Promise<void> {
    await this.writing;
  }

  private due(): boolean {
    return groupDue(this.writer.waiting, performance.now() - this.lastStart, this.writer.appendsOnly);
  }

  /** Writes groups while enough rows wait (all of them when `ending`). */
  private async drain(ending = false): Promise<void> {
    try {
      while (this.callbacks.length > 0 && (ending || this.due())) {
        let callbacks: Array<() => void> = [];
        const pass = this.state.pass!;
        let saving: PassState = pass;
        // the group's rows, its saved progress and its pages' callbacks are taken together: once the
        // mirror is held, between two appends
        const counts = await this.mirror.use(async () => {
          while (this.appending) await this.appending.catch(() => undefined);
          // the group is sealed now: the next one's rows are read from here on
          this.lastStart = performance.now();
          callbacks = this.callbacks;
          this.callbacks = [];
          saving = { ...pass };
          return this.writer.write({ ...this.state, pass: saving }, pass.mode === COMPLETE_PASS);
        });
        // the write's transaction counted the group's rows into the progress it saved
        this.saved = saving;
        pass.inserted += counts.inserted;
        pass.updated += counts.updated;
        for (const callback of callbacks) callback();
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.writing = undefined;
    }
  }
}

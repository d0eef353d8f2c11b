import type { DuckDBConnection } from '@duckdb/node-api';
import { openRowAppender, type RowAppender } from '../duckdb/append-rows.js';
import { rowJson } from '../duckdb/json-rows.js';
import type { TypedColumn } from '../records/typed-plan.js';
import type { TypedValue } from '../records/typed-values.js';
import { partialPath, asWriteFailure } from './copy-out.js';
import { commitInbox, copyStaged, INBOX_TABLE, openStaging, STAGING_ROW_GROUP, type Staging } from './staging.js';
import { removeFile, removeStaging, stagingPath } from './staging-files.js';

// A Parquet file written from typed rows: rows go into the staging file (staging.ts) in commits that run
// on DuckDB's side while the next rows are read. Two connections take turns: while one commits the rows of
// its inbox, the other takes the next rows, so rows never wait in JavaScript. At the end DuckDB copies the
// rows to FILE.partial, which is renamed to FILE (copy-out.ts). What an export's checkpoint counts is
// always committed.

/** Rows are committed once a row group of the staging table is full, or this long after the last commit. */
const COMMIT_EVERY_MS = 1000;
/** While a commit runs, rows go to the other inbox; past this many, the export waits for the commit. */
const MAX_PENDING_ROWS = 4 * STAGING_ROW_GROUP;

/** A Parquet file while its rows are staged: an export's output (rows added instead of bytes written). */
export interface StagedOutput {
  readonly kind: 'staged';
  /** The staging file: what holds the rows while FILE is written. */
  readonly partialPath: string;
  /** Rows staged so far, committed or not: what a Parquet checkpoint's `bytes` counts. */
  readonly rows: number;
  /** Rows of typed values in the columns' order (each gets its row number); committed within about a second. */
  add(rows: TypedValue[][]): Promise<void>;
  /**
   * Once a commit of every row added so far has begun: a promise that resolves when they are in the
   * staging file (rejects if that commit fails). Undefined while some rows wait for a later commit.
   */
  covering(): Promise<void> | undefined;
  /** Commits every row added so far, and waits for it. */
  settle(): Promise<void>;
  /** DuckDB makes each commit durable: nothing to sync (settle() commits). */
  syncData(): Promise<void>;
  /** Every row is added: FILE is written whole and the staging file removed. */
  commit(): Promise<void>;
  /** Stops before the end: rows not committed are dropped; the staging file stays (an export's --resume). */
  keep(): Promise<void>;
  /** Every row is added but FILE is not to be replaced: FILE.partial is left whole, the staging file removed. */
  keepWhole(): Promise<void>;
  /** Stops, leaving nothing: the staging file and any FILE.partial are removed. */
  discard(): Promise<void>;
}

/**
 * A Parquet file of these columns to `path`: a new staging file (replacing one a crashed run left), or
 * (`resumeRows`) the one an interrupted export left, cut back to the rows its checkpoint counts (a
 * checkpoint may lag the staging file by a commit).
 */
export async function openStagedOutput(path: string, columns: readonly TypedColumn[], resumeRows?: number): Promise<StagedOutput> {
  if (resumeRows === undefined) await removeStaging(path);
  try {
    const staging = await openStaging(stagingPath(path), columns, resumeRows);
    return new ParquetOutput(path, staging, columns, resumeRows ?? 0);
  } catch (error) {
    // a new staging file that could not be made holds nothing: none is left behind (a resumed one stays for --resume)
    if (resumeRows === undefined) await removeStaging(path).catch(() => undefined);
    throw error;
  }
}

/** One of the two connections, and the appender to its inbox while it takes rows. */
interface Inbox {
  connection: DuckDBConnection;
  appender?: RowAppender;
}

class ParquetOutput implements StagedOutput {
  readonly kind = 'staged';
  readonly partialPath: string;
  private readonly inboxes: [Inbox, Inbox];
  /** The inbox taking rows (the other one may be committing). */
  private taking: 0 | 1 = 0;
  /** JSON texts of the rows of the page being added. */
  private waiting: string[][] = [];
  /** Rows added that no commit has taken yet (waiting or in the inbox). */
  private pending = 0;
  /** The commit under way: it runs on DuckDB's side while the next pages are read and typed. */
  private committing: Promise<void> | undefined;
  private lastCommit = Date.now();
  /** Rows the staging file holds once committed; closing drops the rows added after them. */
  private committed: number;
  /** A step that failed (a full disk): the export stops with it at the next step. */
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly staging: Staging,
    private readonly columns: readonly TypedColumn[],
    public rows: number,
  ) {
    this.partialPath = stagingPath(path);
    this.committed = rows;
    this.inboxes = [{ connection: staging.connections[0] }, { connection: staging.connections[1] }];
  }

  covering(): Promise<void> | undefined {
    if (this.failure !== undefined || this.pending > 0) return undefined;
    return this.committing ?? Promise.resolve();
  }

  async add(rows: TypedValue[][]): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (rows.length === 0) return;
    for (const row of rows) {
      row.push(this.rows);
      this.rows += 1;
      this.waiting.push([rowJson(row)]);
    }
    this.pending += rows.length;
    // each page straight to the inbox: rows held in JavaScript would outlive the young generation and grow the heap
    await this.step(() => this.toInbox());
    if (this.pending < STAGING_ROW_GROUP && Date.now() - this.lastCommit < COMMIT_EVERY_MS) return;
    if (this.committing) {
      // the other inbox is being committed: this one takes rows meanwhile, up to a limit
      if (this.pending < MAX_PENDING_ROWS) return;
      await this.committing;
    }
    await this.step(() => this.beginCommit());
  }

  async settle(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    await this.committing;
    await this.step(() => this.beginCommit());
    await this.committing;
  }

  /** DuckDB makes each commit durable (its WAL is fsynced): nothing more to sync before a checkpoint. */
  async syncData(): Promise<void> {}

  /** Every row is staged: DuckDB copies them to FILE.partial as Parquet, which becomes FILE. */
  async commit(): Promise<void> {
    await this.copy(false);
  }

  /** Every row is staged, but FILE is not to be replaced (--on-truncated error): FILE.partial is left whole. */
  async keepWhole(): Promise<void> {
    await this.copy(true);
  }

  /** The export stops: rows not committed are dropped (no checkpoint counts them); the staging file stays. */
  async keep(): Promise<void> {
    await this.close();
  }

  async discard(): Promise<void> {
    await this.close();
    await removeFile(partialPath(this.path));
    await removeStaging(this.path);
  }

  /** The staged rows, in the order they were added, as FILE (or only FILE.partial); the staging file closed and removed. */
  private async copy(partialOnly: boolean): Promise<void> {
    await this.settle();
    await copyStaged(this.staging, this.columns, { path: this.path, partialOnly });
    await this.close();
    await removeStaging(this.path);
  }

  /** The rows waiting, appended to the inbox taking rows. */
  private async toInbox(): Promise<void> {
    if (this.waiting.length === 0) return;
    const inbox = this.inboxes[this.taking];
    inbox.appender ??= await openRowAppender(
      { duckdb: this.staging.db.duckdb, connection: inbox.connection },
      { name: INBOX_TABLE, catalog: 'temp' },
      ['VARCHAR'],
    );
    inbox.appender.append(this.waiting);
    this.waiting = [];
  }

  /** Commits the rows of the inbox taking them, without waiting for the commit to end (see covering); the other inbox takes the next rows. */
  private async beginCommit(): Promise<void> {
    this.lastCommit = Date.now();
    if (this.pending === 0) return;
    await this.toInbox();
    const inbox = this.inboxes[this.taking];
    inbox.appender?.close();
    inbox.appender = undefined;
    this.taking = this.taking === 0 ? 1 : 0;
    this.pending = 0;
    const rows = this.rows;
    const commit = commitInbox(inbox.connection, this.columns).then(
      () => {
        this.committed = rows;
      },
      (error: unknown) => {
        this.failure ??= asWriteFailure(this.partialPath, error);
        throw this.failure;
      },
    );
    const tracked: Promise<void> = commit.finally(() => {
      if (this.committing === tracked) this.committing = undefined;
    });
    tracked.catch(() => undefined); // its failure is reported by the next step, not as an unhandled rejection
    this.committing = tracked;
  }

  /** A DuckDB step whose failure (a full disk) is a refused write of the staging file. */
  private async step(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.failure ??= asWriteFailure(this.partialPath, error);
      throw this.failure;
    }
  }

  /** Lets a commit under way end (what it commits stays valid), drops what no commit took, and closes. */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.committing?.catch(() => undefined);
    this.waiting = [];
    this.pending = 0;
    for (const inbox of this.inboxes) {
      try {
        inbox.appender?.close();
      } catch {
        // the inbox is in memory: what it held is dropped with the connection
      }
      inbox.appender = undefined;
    }
    this.rows = this.committed;
    this.staging.close();
  }
}

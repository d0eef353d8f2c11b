import type { RowAppender } from '../duckdb/index.js';
import type { TypedColumn, TypedValue } from '../records/index.js';
import { partialPath, asWriteFailure } from './copy-out.js';
import { copyStaged, openStaging, openStagingAppender, STAGING_ROW_GROUP, type Staging } from './staging.js';
import { removeFile, removeStaging, stagingPath } from './staging-files.js';

// A Parquet file written from typed rows: each page's rows are appended to the staging file's table as
// they come (staging.ts), and committed a row group at a time, or a second after the last commit. At the
// end DuckDB copies the rows to FILE.partial, which is renamed to FILE (copy-out.ts). What an export's
// checkpoint counts is always committed.

/** Rows are committed once a row group of the staging table is full, or this long after the last commit. */
const COMMIT_EVERY_MS = 1000;

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
   * Once every row added so far is committed: a promise that resolves (they are in the staging file).
   * Undefined while some rows wait for a later commit.
   */
  covering(): Promise<void> | undefined;
  /** Commits every row added so far, and waits for it. */
  commitRows(): Promise<void>;
  /** DuckDB makes each commit durable: nothing to sync (commitRows() commits). */
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
    let appender: RowAppender;
    try {
      appender = await openStagingAppender(staging, columns);
    } catch (error) {
      staging.close();
      throw asWriteFailure(stagingPath(path), error);
    }
    return new ParquetOutput({ path, staging, appender, columns }, resumeRows ?? 0);
  } catch (error) {
    // a new staging file that could not be made holds nothing: none is left behind (a resumed one stays for --resume)
    if (resumeRows === undefined) await removeStaging(path).catch(() => undefined);
    throw error;
  }
}

class ParquetOutput implements StagedOutput {
  readonly kind = 'staged';
  readonly partialPath: string;
  /** Rows added that no commit has taken yet (in the appender). */
  private uncommitted = 0;
  private lastCommit = Date.now();
  /** Rows the staging file holds once committed; closing drops the rows added after them. */
  private committed: number;
  /** A step that failed (a full disk): the export stops with it at the next step. */
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly open: { path: string; staging: Staging; appender: RowAppender; columns: readonly TypedColumn[] },
    public rows: number,
  ) {
    this.partialPath = stagingPath(open.path);
    this.committed = rows;
  }

  covering(): Promise<void> | undefined {
    if (this.failure !== undefined || this.uncommitted > 0) return undefined;
    return Promise.resolve();
  }

  async add(rows: TypedValue[][]): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (rows.length === 0) return;
    for (const row of rows) {
      row.push(this.rows);
      this.rows += 1;
    }
    this.uncommitted += rows.length;
    // each page straight into DuckDB: rows held in JavaScript would outlive the young generation and grow the heap
    await this.step(() => this.open.appender.append(rows));
    if (this.uncommitted >= STAGING_ROW_GROUP || Date.now() - this.lastCommit >= COMMIT_EVERY_MS) await this.commitRows();
  }

  async commitRows(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.lastCommit = Date.now();
    if (this.uncommitted === 0) return;
    await this.step(async () => this.open.appender.flush());
    this.uncommitted = 0;
    this.committed = this.rows;
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
    this.close();
  }

  async discard(): Promise<void> {
    this.close();
    await removeFile(partialPath(this.open.path));
    await removeStaging(this.open.path);
  }

  /** The staged rows, in the order they were added, as FILE (or only FILE.partial); the staging file closed and removed. */
  private async copy(partialOnly: boolean): Promise<void> {
    await this.commitRows();
    await copyStaged(this.open.staging, this.open.columns, { path: this.open.path, partialOnly });
    this.close();
    await removeStaging(this.open.path);
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

  /** Drops what no commit took, and closes. */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.open.appender.discard();
    } catch {
      // an appender a failed flush left invalid: what it held was never committed
    }
    this.uncommitted = 0;
    this.rows = this.committed;
    this.open.staging.close();
  }
}

/**
 * Typed rows (in the columns' order, a batch at a time) as the Parquet file `path`, the way an export
 * writes one: staged beside it, then copied out. Nothing to resume: a failure leaves neither FILE.partial
 * nor the staging file (FILE, if it was there, stays as it was).
 */
export async function writeParquetFile(
  path: string,
  columns: readonly TypedColumn[],
  batches: AsyncIterable<TypedValue[][]>,
): Promise<void> {
  const output = await openStagedOutput(path, columns);
  try {
    for await (const rows of batches) await output.add(rows);
    await output.commit();
  } catch (error) {
    await output.discard().catch(() => undefined);
    throw error;
  }
}

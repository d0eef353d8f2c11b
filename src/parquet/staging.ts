import { lstat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/index.js';
import {
  openRowAppender,
  type RowAppender,
  returnFreedMemory,
  openDatabase,
  type Database,
  quoteIdent,
  quoteLiteral,
} from '../duckdb/index.js';
import type { TypedColumn } from '../records/index.js';
import { copyOut, copyToPartial, asWriteFailure } from './copy-out.js';

// The staging file of a Parquet file being written to FILE: a DuckDB file beside it (stagingPath) with one
// table of the file's typed columns: the rows added so far, numbered in order. Rows are appended to it
// typed, a data chunk at a time (duckdb/append-rows.ts), and committed by the appender's flush. At the end
// the table is copied out as Parquet (copy-out.ts).

/** The staging file, as DuckDB attaches it. */
const CATALOG = 'tds_staging';
/** The typed rows, with their number in the export (`_tds_row`, last). */
const ROWS_NAME = 'tds_rows';
const ROWS_TABLE = `${CATALOG}.${ROWS_NAME}`;
const ROW_NUMBER = '_tds_row';
/** The columns the staging file was made for, so that a resume never continues a file of another layout. */
const LAYOUT_TABLE = `${CATALOG}.tds_layout`;

/**
 * Rows per row group of the staging table. A commit of that many rows has DuckDB write them to the file
 * once, compressed, instead of through its WAL and a checkpoint later; smaller than DuckDB's default
 * (122,880), so commits come often (a checkpoint lags the export by one) and need little memory.
 */
export const STAGING_ROW_GROUP = 16_384;

/** DuckDB's buffer pool: the export's memory stays flat; DuckDB spills beside the staging file if it must. */
const MEMORY_LIMIT = '64MB';
/**
 * One thread while rows are staged (reading and typing rows needs the other core), and for the copy at
 * the end too: a second thread there costs more CPU in coordination than it saves (measured: about 10%
 * of the Parquet path's CPU at 200,000 rows).
 */
const THREADS = 1;

/** The staging file, open. */
export interface Staging {
  db: Database;
  close(): void;
}

/** Opens the staging file (a new one unless `resumeRows`), cut back to the rows a resumed checkpoint counts. */
export async function openStaging(staging: string, columns: readonly TypedColumn[], resumeRows?: number): Promise<Staging> {
  if (resumeRows !== undefined) await checkStagingFile(staging);
  returnFreedMemory(0);
  const db = await openDatabase(':memory:', {
    readOnly: false,
    what: 'the staging file',
    memoryLimit: MEMORY_LIMIT,
    threads: THREADS,
    privateFiles: true,
  });
  try {
    const { connection } = db;
    await connection.run(`SET temp_directory = ${quoteLiteral(`${staging}.tmp`)}`);
    // The staging file lives for one export: CPU matters more than its size, so no string compression (the
    // costliest to analyse, to compress with zstd and to read back); bulk appends are buffered one row group
    // at a time; and it is not checkpointed on close (it is removed once copied out, or replayed from its
    // WAL by a resume).
    await connection.run(`SET disabled_compression_methods = 'fsst,dictionary,dict_fsst,zstd'`);
    await connection.run('SET write_buffer_row_group_count = 1');
    await connection.run('PRAGMA disable_checkpoint_on_shutdown');
    await attach(connection, staging, resumeRows !== undefined);
    if (resumeRows === undefined) await createTables(connection, columns);
    else await cutBack(connection, staging, columns, resumeRows);
  } catch (error) {
    db.close();
    throw asWriteFailure(staging, error);
  }
  return { db, close: () => db.close() };
}

async function checkStagingFile(staging: string): Promise<void> {
  const info = await lstat(staging).catch(() => undefined);
  if (!info?.isFile()) {
    throw new UsageError(`cannot resume: the staging file ${staging} ${info ? 'is not a regular file' : 'is missing'}`, {
      hint: 'start the export over with --restart',
    });
  }
}

async function attach(connection: DuckDBConnection, staging: string, resuming: boolean): Promise<void> {
  try {
    await connection.run(`ATTACH ${quoteLiteral(staging)} AS ${CATALOG} (ROW_GROUP_SIZE ${STAGING_ROW_GROUP})`);
  } catch (error) {
    if (!resuming) throw error;
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new UsageError(`cannot resume: the staging file ${staging} cannot be opened: ${reason}`, {
      hint: 'start the export over with --restart',
    });
  }
}

function layoutOf(columns: readonly TypedColumn[]): string {
  return JSON.stringify(columns.map((column) => [column.key, column.type]));
}

async function createTables(connection: DuckDBConnection, columns: readonly TypedColumn[]): Promise<void> {
  const list = [...columns.map((column) => `${quoteIdent(column.key)} ${column.type}`), `${quoteIdent(ROW_NUMBER)} BIGINT`];
  await connection.run(`CREATE TABLE ${ROWS_TABLE} (${list.join(', ')})`);
  await connection.run(`CREATE TABLE ${LAYOUT_TABLE} AS SELECT ${quoteLiteral(layoutOf(columns))} AS layout`);
}

/** The staging file of the same columns, holding at least the rows the checkpoint counts; rows after them are dropped. */
async function cutBack(connection: DuckDBConnection, staging: string, columns: readonly TypedColumn[], rows: number): Promise<void> {
  const layout = await connection
    .runAndReadAll(`SELECT layout FROM ${LAYOUT_TABLE}`)
    .then((reader) => String(reader.getRowObjectsJS()[0]?.layout ?? ''))
    .catch(() => '');
  if (layout !== layoutOf(columns)) {
    throw new UsageError(`cannot resume: the staging file ${staging} does not hold the columns of this export`, {
      hint: 'start the export over with --restart',
    });
  }
  const counted = await connection.runAndReadAll(`SELECT count(*)::DOUBLE AS n FROM ${ROWS_TABLE}`);
  const staged = Number(counted.getRowObjectsJS()[0]?.n ?? 0);
  if (staged < rows) {
    throw new UsageError(`cannot resume: the checkpoint counts ${rows} rows but the staging file ${staging} holds ${staged}`, {
      hint: 'start the export over with --restart',
    });
  }
  if (staged > rows) await connection.run(`DELETE FROM ${ROWS_TABLE} WHERE ${quoteIdent(ROW_NUMBER)} >= ${rows}`);
}

/** An appender of rows to the staging table: each row's typed values in the columns' order, then its number. */
export function openStagingAppender(staging: Staging, columns: readonly TypedColumn[]): Promise<RowAppender> {
  return openRowAppender(staging.db, { name: ROWS_NAME, catalog: CATALOG }, [...columns.map((column) => column.type), 'BIGINT']);
}

/**
 * The staged rows, in the order they were added, as the Parquet file `path` (copyOut), or only as
 * `path`.partial when `partialOnly` (FILE is not to be replaced).
 */
export async function copyStaged(
  staging: Staging,
  columns: readonly TypedColumn[],
  target: { path: string; partialOnly?: boolean },
): Promise<void> {
  const { connection } = staging.db;
  const keys = columns.map((column) => quoteIdent(column.key)).join(', ');
  // A plain scan keeps the order rows were inserted in (preserve_insertion_order): no sort needed.
  const copy = { run: (sql: string) => connection.run(sql), query: `SELECT ${keys} FROM ${ROWS_TABLE}`, path: target.path };
  if (target.partialOnly) await copyToPartial(copy);
  else await copyOut(copy);
}

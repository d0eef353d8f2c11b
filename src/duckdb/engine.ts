import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { TdsError, UsageError } from '../core/errors.js';
import { noteStuckNativeWork } from '../core/exit-process.js';
import { holdPrivateUmask } from '../core/private-files.js';
import { duckdbFailure, firstLine, firstLineReason, lockHolder, systemRefusal } from './errors.js';
import { lockdownStatements, openSettings, type FileAccess } from './file-access.js';

// The DuckDB engine (@duckdb/node-api), loaded only by the commands that use it: every other command
// starts without its native library.

export type DuckDBModule = typeof import('@duckdb/node-api');

let loaded: Promise<DuckDBModule> | undefined;

export function loadDuckDB(): Promise<DuckDBModule> {
  return (loaded ??= import('@duckdb/node-api'));
}

export interface OpenOptions {
  readOnly: boolean;
  /** What the file is to the user, for messages: `the mirror`, `the staging file`. */
  what: string;
  /** DuckDB's memory_limit (its buffer pool; RSS stays near it). */
  memoryLimit?: string;
  threads?: number;
  /** What SQL may do outside the database (tds sql); unrestricted when absent (tds's own statements). */
  access?: FileAccess;
  /**
   * The files DuckDB creates for it (the database, its .wal, spill files, a database it attaches) are
   * private (0600): the default for a database file; an in-memory database that attaches one says so.
   */
  privateFiles?: boolean;
}

export interface Database {
  readonly path: string;
  readonly duckdb: DuckDBModule;
  readonly connection: DuckDBConnection;
  /** Another connection to the same database (closed by its user before close()). */
  connect(): Promise<DuckDBConnection>;
  /** Stops what its connections are running (their calls fail with DuckDB's interrupt error). */
  interrupt(): void;
  /** A call that did not stop when interrupted still runs in DuckDB: close() leaves everything as it is. */
  abandon(): void;
  close(): void;
}

/** Opens (or creates, unless read-only) a DuckDB file; DuckDB's refusals become usage errors that say what to do. */
export async function openDatabase(path: string, options: OpenOptions): Promise<Database> {
  if (path !== ':memory:') await checkIsDuckDBFile(path, options);
  const duckdb = await loadDuckDB();
  const settings: Record<string, string> = {
    access_mode: options.readOnly ? 'READ_ONLY' : 'READ_WRITE',
    ...(options.memoryLimit ? { memory_limit: options.memoryLimit } : {}),
    ...(options.threads ? { threads: String(options.threads) } : {}),
    ...(options.access ? openSettings(options.access) : {}),
  };
  const release = (options.privateFiles ?? path !== ':memory:') ? holdPrivateUmask() : () => undefined;
  let instance: DuckDBInstance;
  try {
    instance = await duckdb.DuckDBInstance.create(path, settings);
  } catch (error) {
    release();
    throw openError(path, options, error);
  }
  const connection = await instance.connect();
  const others = new Set<DuckDBConnection>();
  let abandoned = false;
  const close = (): void => {
    if (abandoned) return;
    connection.closeSync();
    instance.closeSync();
    release();
  };
  try {
    for (const statement of options.access ? lockdownStatements(options.access) : []) await connection.run(statement);
  } catch (error) {
    close();
    throw error;
  }
  return {
    path,
    duckdb,
    connection,
    async connect() {
      const other = await instance.connect();
      others.add(other);
      return other;
    },
    interrupt() {
      for (const each of [connection, ...others]) each.interrupt();
    },
    abandon() {
      if (!abandoned) noteStuckNativeWork();
      abandoned = true;
    },
    close,
  };
}

/**
 * An existing path must be a DuckDB file: DuckDB fails on a folder with a bare I/O error, and opens a
 * CSV, JSON or Parquet file as an empty in-memory database (its shell's convenience), where a sync
 * would write rows that vanish at exit. A DuckDB file has "DUCK" at byte 8; a new path is created.
 */
async function checkIsDuckDBFile(path: string, options: OpenOptions): Promise<void> {
  const what = `${options.what} ${path}`;
  const stats = await stat(path).catch(() => undefined);
  if (!stats) return; // a new file (or one DuckDB refuses with its own message)
  if (stats.isDirectory()) throw new UsageError(`${what} is a folder`, { hint: `give --db a file name, e.g. ${join(path, 'tds.duckdb')}` });
  if (stats.size === 0) return;
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(12);
    const { bytesRead } = await file.read(header, 0, 12, 0);
    if (bytesRead < 12 || header.toString('latin1', 8, 12) !== 'DUCK') {
      throw new UsageError(`${what} is not a DuckDB database`, { hint: 'give --db a new file name, or a mirror made by tds sync' });
    }
  } finally {
    await file.close();
  }
}

function openError(path: string, options: OpenOptions, error: unknown): Error {
  const what = `${options.what} ${path}`;
  const failure = duckdbFailure(error);
  if (failure === 'locked') {
    const pid = lockHolder(error);
    return new UsageError(`${what} is in use by another process${pid ? ` (PID ${pid})` : ''}`, {
      hint: 'while a tds sync (or tds sql --write) writes a mirror, no other process can open it, not even to read: wait until it ends (a sync --follow runs until Ctrl-C)',
    });
  }
  if (failure === 'not-a-database') {
    return new UsageError(`${what} is not a DuckDB database`, { hint: 'give --db a new file name, or a mirror made by tds sync' });
  }
  if (failure === 'no-database') {
    // not found (exit 4), as a table the mirror lacks: one code for "the mirror has nothing to read" in every command
    return new TdsError('NOT_FOUND', `${what} does not exist`, { hint: 'make it with `tds sync TABLE --db FILE` first' });
  }
  if (failure === 'other-version') {
    return new UsageError(`${what} was written by another version of DuckDB: ${firstLine(error)}`);
  }
  const refusal = systemRefusal(error);
  if (failure === 'cannot-open-file' || refusal === 'EACCES' || refusal === 'EROFS') {
    return new UsageError(`cannot open ${what}: ${firstLineReason(error)}`, {
      hint: 'check that its folder exists and can be written',
    });
  }
  return error instanceof Error ? error : new Error(String(error));
}

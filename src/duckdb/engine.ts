import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';

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
}

export interface Database {
  readonly path: string;
  readonly duckdb: DuckDBModule;
  readonly connection: DuckDBConnection;
  /** Another connection to the same database (closed by its user before close()). */
  connect(): Promise<DuckDBConnection>;
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
  };
  let instance: DuckDBInstance;
  try {
    instance = await duckdb.DuckDBInstance.create(path, settings);
  } catch (error) {
    throw openError(path, options, error);
  }
  const connection = await instance.connect();
  return {
    path,
    duckdb,
    connection,
    connect: () => instance.connect(),
    close() {
      connection.closeSync();
      instance.closeSync();
    },
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
  const message = (error as Error).message ?? String(error);
  const what = `${options.what} ${path}`;
  const pid = /\(PID (\d+)\)/.exec(message)?.[1];
  if (/Could not set lock/i.test(message)) {
    return new UsageError(`${what} is in use by another process${pid ? ` (PID ${pid})` : ''}`, {
      hint: 'while a tds sync (or tds sql --write) writes a mirror, no other process can open it, not even to read: wait until it ends (a sync --follow runs until Ctrl-C)',
    });
  }
  if (/not a valid DuckDB database file/i.test(message)) {
    return new UsageError(`${what} is not a DuckDB database`, { hint: 'give --db a new file name, or a mirror made by tds sync' });
  }
  if (/database does not exist/i.test(message)) {
    return new UsageError(`${what} does not exist`, { hint: 'make it with `tds sync TABLE --db FILE` first' });
  }
  if (/version number|newer version|older version/i.test(message)) {
    return new UsageError(`${what} was written by another version of DuckDB: ${firstLine(message)}`);
  }
  if (/Cannot open file|Permission denied|Read-only file system/i.test(message)) {
    return new UsageError(`cannot open ${what}: ${firstLine(message.replace(/^IO Error: /, ''))}`, {
      hint: 'check that its folder exists and can be written',
    });
  }
  return error instanceof Error ? error : new Error(message);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

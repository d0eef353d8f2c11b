import { open, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { TdsError, UsageError, noteStuckNativeWork, holdPrivateUmask, lockAddress, tryNamedLock, type ProcessLock } from '../core/index.js';
import { duckdbFailure, firstLine, firstLineReason, lockHolder, systemRefusal } from './errors.js';
import { lockdownStatements, openSettings, type FileAccess } from './file-access.js';
import { quoteIdent, quoteLiteral } from './sql-text.js';

// The DuckDB engine (@duckdb/node-api), loaded only by the commands that use it: every other command
// starts without its native library.

export type DuckDBModule = typeof import('@duckdb/node-api');

let loaded: Promise<DuckDBModule> | undefined;

/**
 * @duckdb/node-api, loaded by the first command that opens a database (in the bundle, a file of its own). It
 * is CommonJS: its `default` is its exports, both as Node imports it and from the bundle (which has no other).
 */
export function loadDuckDB(): Promise<DuckDBModule> {
  return (loaded ??= import('@duckdb/node-api').then((module) => module.default));
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
  /**
   * How long to wait while another process holds the file (a sync writing a group, a reader reading):
   * each holds it only that long. Default LOCK_WAIT_MS; 0 refuses at once.
   */
  lockWaitMs?: number;
  /** Told once, when a wait grows long, who holds the file (PID, command). */
  onWait?(line: string): void;
  /** Ends a wait early (Ctrl-C). */
  signal?: AbortSignal;
}

/** How long an open waits for the file by default, and after how long it says who holds it. */
export const LOCK_WAIT_MS = 120_000;
const LOCK_NOTE_MS = 3_000;

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
    instance = await waitForFile(path, options, () => duckdb.DuckDBInstance.create(path, settings));
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
 * DuckDB locks a file for one writing process or any number of reading ones. Tds's writers and readers
 * hold it for a moment each (a group of a sync, a query), so a refusal is retried, more slowly as it
 * lasts, for up to `lockWaitMs`; once the wait is long, `onWait` hears who holds the file. While it
 * waits, the process says so (a named lock, see `someoneWaits`): a sync that writes group after group
 * lets it in before it takes the file again.
 */
async function waitForFile<T>(path: string, options: OpenOptions, attempt: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const limit = options.lockWaitMs ?? LOCK_WAIT_MS;
  let pause = 5;
  let noted = false;
  let waiting: ProcessLock | undefined;
  try {
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        const waited = performance.now() - started;
        if (duckdbFailure(error) !== 'locked' || waited >= limit || options.signal?.aborted) throw error;
        waiting ??= await tryNamedLock(waitingFor(path));
        if (!noted && waited >= LOCK_NOTE_MS && options.onWait) {
          noted = true;
          options.onWait(`waiting for ${options.what} ${path}: ${describeHolder(lockHolder(error))} holds it`);
        }
        await new Promise((done) => setTimeout(done, Math.min(pause, limit - waited)));
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
    }
  } finally {
    await waiting?.release();
  }
}

/** The longest pause between two tries of a waiting open: a writer that gives way waits about this long. */
export const MAX_PAUSE_MS = 250;

const waitingFor = (path: string): string => `tds waits for ${lockAddress(path)}`;

/** Whether a process waits for the file now (it was refused while another held it). */
export async function someoneWaits(path: string): Promise<boolean> {
  const lock = await tryNamedLock(waitingFor(path));
  await lock?.release();
  return lock === undefined;
}

/**
 * Attaches the DuckDB file `path` to an in-memory database as `name` through `connection` (made
 * private by that database's `privateFiles`), waiting as openDatabase waits; `DETACH` releases it.
 */
export async function attachDatabase(connection: DuckDBConnection, path: string, name: string, options: OpenOptions): Promise<void> {
  await checkIsDuckDBFile(path, options);
  try {
    await waitForFile(path, options, () => connection.run(`ATTACH ${quoteLiteral(path)} AS ${quoteIdent(name)}`));
  } catch (error) {
    throw openError(path, options, error);
  }
}

/**
 * `PID 123 (tds sync)`: the program and its command from /proc where the system has it; never the rest
 * of its arguments, which may hold a secret (a webhook URL).
 */
export function describeHolder(pid: string | undefined): string {
  if (pid === undefined) return 'another process';
  let words: string[] = [];
  try {
    words = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean);
  } catch {
    // not Linux, or the process has ended
  }
  const tds = words.findIndex((word) => /^tds(\.js)?$/.test(basename(word)));
  const command = tds >= 0 ? ['tds', ...words.slice(tds + 1, tds + 2)].join(' ') : words[0] && basename(words[0]);
  return `PID ${pid}${command ? ` (${command})` : ''}`;
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
    const waited = options.lockWaitMs ?? LOCK_WAIT_MS;
    return new UsageError(
      `${what} is in use by another process (${describeHolder(pid)})${waited > 0 ? ` and stayed so for ${Math.round(waited / 1000)} s` : ''}`,
      {
        hint: 'a tds sync or tds sql holds a mirror only while it writes a group or runs a statement; another program (a DuckDB client opened for writing) may hold it for as long as it runs: close it, or wait',
      },
    );
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

/**
 * The allocator DuckDB bundles (jemalloc) keeps freed pages a while to reuse them: with tables made and
 * dropped over and over (a sync's groups, the inboxes of a Parquet staging file) that is over 100 MB
 * held for nothing. Returned `afterMs` after they are freed (0: at once), RSS stays flat; but each page
 * given back and taken again costs a page fault, dear on a virtual machine (a `tds diff` of 100,000 rows
 * spent 30 % of its time so at 0, and 20 ms took a third off its time for some 45 MB more). DuckDB reads
 * the setting from the environment when its library loads, so this is called before the first database
 * is opened; a setting the user made is kept.
 */
export function returnFreedMemory(afterMs: number, env: NodeJS.ProcessEnv = process.env): void {
  env.DUCKDB_JE_MALLOC_CONF ??= `dirty_decay_ms:${afterMs},muzzy_decay_ms:0`;
}

/** The least time between two collections of one collector: a full collection takes some 5-30 ms. */
const COLLECT_EVERY_MS = 5_000;
let collect: (() => void) | null | undefined;

/**
 * DuckDB's results and data chunks are native memory that the bindings free only when their JavaScript
 * objects are collected, and they tell V8 nothing of it: a process whose heap stays small (a sync
 * --follow, between its rounds) collects them late, and holds tens of MB of finished results. The
 * function returned makes a full collection (before a long wait), at most once every COLLECT_EVERY_MS; a
 * follower measured 30-40 MB lower for it. V8's `gc` is reached through --expose-gc set now, in a context
 * of its own.
 */
export function finishedResultsCollector(): () => void {
  let collectedAt = -Infinity;
  return () => {
    if (performance.now() - collectedAt < COLLECT_EVERY_MS) return;
    collectGarbage();
    collectedAt = performance.now();
  };
}

/**
 * A full collection now. A result a reader left unfinished (a query cut at its first rows) holds its
 * database, and the file's lock, until its object is collected: an instance let go for another process
 * is followed by this, and by a turn of the event loop (the bindings free native objects there).
 */
export async function freeUnfinishedResults(): Promise<void> {
  collectGarbage();
  await new Promise((done) => setImmediate(done));
}

function collectGarbage(): void {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
}

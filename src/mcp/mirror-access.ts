import { UsageError } from '../core/errors.js';
import type { Database } from '../duckdb/engine.js';
import { openMirror } from '../mirror/mirror-db.js';

/** What a sync in this server is doing, for the message a second one gets. */
interface Writer {
  what: string;
  since: Date;
}

/**
 * The server's access to the mirror file. Reads share one read-only DuckDB instance, one at a time, kept open while
 * they come (a warm query costs no open) and closed after `idleMs` without one, so that a `tds sync`
 * in another process can take the file. A sync of this server has the file alone: it waits for the
 * reads under way, closes the instance, and meanwhile reads and other syncs are refused with a message
 * that says why. (DuckDB locks the file per process: two instances of one process must never mix a
 * writer with readers.)
 */
export class MirrorAccess {
  private db: Promise<Database> | undefined;
  private readers = 0;
  private writer: Writer | undefined;
  private idle: NodeJS.Timeout | undefined;
  private readersDone: (() => void) | undefined;
  private turns: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly idleMs: number,
  ) {}

  /**
   * Runs `work` on the read-only mirror (opened now if it is not), after the reads before it: they
   * take turns on its one connection (a DuckDB connection runs one statement at a time, and an
   * interrupt stops the statement of that connection).
   */
  async read<T>(work: (db: Database) => Promise<T>): Promise<T> {
    if (this.writer) throw this.busy(`cannot read the mirror ${this.path} while this server syncs it`);
    this.readers += 1;
    clearTimeout(this.idle);
    const turn = this.turns.then(async () => work(await this.open()));
    this.turns = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      this.readers -= 1;
      if (this.readers === 0) this.afterReads();
    }
  }

  /** Runs `work` (a sync, which opens the file for writing itself) with the file to itself. */
  async write<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (this.writer) throw this.busy(`a sync is already running in this server (${this.writer.what})`);
    this.writer = { what, since: new Date() };
    try {
      if (this.readers > 0) await new Promise<void>((done) => (this.readersDone = done));
      await this.closeDb();
      return await work();
    } finally {
      this.writer = undefined;
    }
  }

  /** Whether a sync of this server holds the file. */
  get syncing(): boolean {
    return this.writer !== undefined;
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    await this.closeDb();
  }

  /**
   * Forgets the open instance without closing it (from a read: reads take turns, so it is the one that
   * read used): a statement that did not stop when interrupted still runs in it (see
   * duckdb/interruptible.ts), so the next read opens another one.
   */
  discard(): void {
    this.db = undefined;
  }

  private open(): Promise<Database> {
    // every read runs without file access: query_sql's statements, and the tools' own
    this.db ??= openMirror(this.path, {
      readOnly: true,
      access: { files: false },
      onWait: (line) => process.stderr.write(`tds: ${line}\n`),
    }).catch((error: unknown) => {
      this.db = undefined;
      throw error;
    });
    return this.db;
  }

  private afterReads(): void {
    const done = this.readersDone;
    this.readersDone = undefined;
    if (done) return done();
    clearTimeout(this.idle);
    // closed at once by default: a sync --follow in another process writes the file between queries
    if (this.idleMs === 0) return void this.closeDb();
    this.idle = setTimeout(() => void this.closeDb(), this.idleMs);
    this.idle.unref();
  }

  private async closeDb(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    if (db) (await db.catch(() => undefined))?.close();
  }

  private busy(message: string): UsageError {
    const since = this.writer ? ` since ${this.writer.since.toISOString()}` : '';
    return new UsageError(`${message}${since}`, {
      hint: 'wait until the sync ends (its progress notifications tell how far it is), then call the tool again',
    });
  }
}

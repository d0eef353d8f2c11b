import { type Context, TdsError, UsageError, type FailureReason } from '../core/index.js';
import type { Database } from '../duckdb/index.js';
import type { ApiClient } from '../http/index.js';
import { z } from 'zod';

export interface Caps {
  /** rows a result holds at most (--max-rows, 1-1000) */
  maxRows: number;
  /** bytes of a result's JSON text at most (--max-bytes) */
  maxBytes: number;
}

export const DEFAULT_CAPS: Caps = { maxRows: 100, maxBytes: 50_000 };
export const MAX_ROWS_LIMIT = 1000;

/** The command line's advice for a failure (commands/hints.ts), which a failed tool result gives too. */
export type HintsOf = (error: { reason?: FailureReason; hint?: string }) => string | undefined;

/** A file the server was started with: its absolute path, and the setting it came from (`TDS_DB`, `--db`, …). */
export interface ServedFile {
  path: string;
  from: string;
}

/** How a file of the server can be set, for the message when it is missing. */
export const WAYS_TO_SET = {
  mirror: 'start tds mcp with --db FILE, set TDS_DB=FILE in its environment, or save `tds config set db FILE` (an absolute path)',
  checks:
    'pass check_tables a file (an absolute path) or yaml; or start tds mcp with --checks FILE, set TDS_CHECKS=FILE, or save `tds config set checks FILE`',
} as const;

/** What `tds mcp` was started with. */
export interface McpServeOptions {
  /** the mirror file (absolute) */
  db: ServedFile;
  /** check_tables's checks file when the call names none (absolute) */
  checks: ServedFile;
  /** --allow-push: push_records is offered */
  allowPush: boolean;
  caps: Caps;
  version: string;
  /** --profile (saved webhooks are read from it) */
  profile?: string;
  /** how push_records delivers: the settings' rate scale, retries and timeout */
  delivery: { rateScale: number; maxRetries?: number; timeoutMs?: number; webhookBudget?: number; tableCapacity?: number };
  /**
   * The API client for the settings, bound to `signal`; throws the command line's error (no base URL,
   * no key) when they do not allow one.
   */
  connect(signal: AbortSignal): Promise<ApiClient>;
  /** The command line's advice for a failure (commands/hints.ts). */
  hintsOf: HintsOf;
  /** Texts no result or log may hold (the API key); push_records adds the webhook URLs it loads. */
  secrets?: string[];
}

/**
 * Between reads the mirror stays open (a warm query costs no open: 4-5x its time on a large mirror), for
 * at most this long without one (the instance holds memory); a writer that waits for the file gets it
 * at once (MirrorAccess.watch).
 */
const MIRROR_IDLE_MS = 60_000;
/**
 * How often an idle open mirror looks for a process that waits to write it. A waiting writer tries
 * again after 5, 15, 35, 75 ms… (engine.ts waitForFile): let go within this, it is in by the 75 ms try.
 */
const WRITER_WATCH_MS = 25;

/**
 * What the tools share for the life of the server: one API client (so every row request, a sync's
 * and search_rows', keeps within the organization's one row-read limit), the mirror, the caps.
 */
export class Session {
  readonly mirror: MirrorAccess;
  readonly secrets: Set<string>;
  private client: Promise<ApiClient> | undefined;

  constructor(
    /** the command's Context, its signal the server's end */
    readonly ctx: Context,
    readonly options: McpServeOptions,
  ) {
    this.mirror = new MirrorAccess(options.db.path, MIRROR_IDLE_MS);
    this.secrets = new Set(options.secrets ?? []);
  }

  get caps(): Caps {
    return this.options.caps;
  }

  /** The API client, made on first use; the command line's error when the settings lack a base URL or key. */
  service(): Promise<ApiClient> {
    this.client ??= this.options.connect(this.ctx.signal).catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  /**
   * Now on the service's clock, as verified_at is, when this server has heard the service (a sync, a
   * search); else this machine's: what a table's staleness is measured against.
   */
  async now(): Promise<number> {
    return (await this.client?.catch(() => undefined))?.serviceNow() ?? Date.now();
  }

  async close(): Promise<void> {
    await this.mirror.close();
    await (await this.client?.catch(() => undefined))?.close();
  }
}

/** DuckDB's engine code, loaded by the first read. */
const engine = (): Promise<typeof import('../duckdb/engine.js')> => import('../duckdb/engine.js');

/** What a sync in this server is doing, for the message a second one gets. */
interface Writer {
  what: string;
  since: Date;
}

/**
 * The server's access to the mirror file. Reads share one read-only DuckDB instance, one at a time, kept open while
 * they come (a warm query costs no open) and closed after `idleMs` without one, or as soon as another
 * process waits to write the file (a `tds sync` there says so while it waits, engine.ts `someoneWaits`:
 * the server gives way as a sync gives way to readers), looked for every `watchMs` while idle. A sync
 * of this server has the file alone: it waits for the reads under way, closes the instance, and
 * meanwhile reads and other syncs are refused with a message that says why. (DuckDB locks the file per
 * process: two instances of one process must never mix a writer with readers.)
 */
export class MirrorAccess {
  private db: Promise<Database> | undefined;
  private readers = 0;
  private writer: Writer | undefined;
  /** The next look for a waiting writer while the mirror is open and idle. */
  private watching: NodeJS.Timeout | undefined;
  private watchTurn = 0;
  private readersDone: (() => void) | undefined;
  private turns: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly idleMs: number,
    private readonly watchMs = WRITER_WATCH_MS,
  ) {}

  /**
   * Runs `work` on the read-only mirror (opened now if it is not), after the reads before it: they
   * take turns on its one connection (a DuckDB connection runs one statement at a time, and an
   * interrupt stops the statement of that connection).
   */
  async read<T>(work: (db: Database) => Promise<T>): Promise<T> {
    if (this.writer) throw this.busy(`cannot read the mirror ${this.path} while this server syncs it`);
    this.readers += 1;
    clearTimeout(this.watching);
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
    await this.closeDb();
  }

  /**
   * Forgets the open instance without closing it (from a read: reads take turns, so it is the one that
   * read used): a statement that did not stop when interrupted still runs in it (see
   * duckdb/statement.ts), so the next read opens another one.
   */
  discard(): void {
    this.db = undefined;
  }

  private open(): Promise<Database> {
    // every read runs without file access: query_sql's statements, and the tools' own
    // the mirror's code (and DuckDB) is loaded by the first read: the server answers `initialize` without it
    this.db ??= import('../mirror/mirror-db.js')
      .then(({ openMirror }) =>
        openMirror(this.path, {
          readOnly: true,
          access: { files: false },
          onWait: (line) => process.stderr.write(`tds: ${line}\n`),
        }),
      )
      .catch((error: unknown) => {
        this.db = undefined;
        if (error instanceof TdsError && error.code === 'NOT_FOUND') {
          throw new TdsError('NOT_FOUND', `there is no mirror at ${this.path}`, {
            hint: `sync_tables makes it there; for another mirror, ${WAYS_TO_SET.mirror}`,
          });
        }
        throw error;
      });
    return this.db;
  }

  private afterReads(): void {
    const done = this.readersDone;
    this.readersDone = undefined;
    if (done) return done();
    this.watch(performance.now() + this.idleMs);
  }

  /** While no read runs, the open mirror is closed at `until`, or as soon as a process waits to write it. */
  private watch(until: number): void {
    clearTimeout(this.watching);
    const turn = (this.watchTurn += 1);
    // a read that began (and the watch it starts when it ends) replaces this one
    const replaced = (): boolean => turn !== this.watchTurn || this.readers > 0 || this.db === undefined;
    const look = async (): Promise<void> => {
      if (replaced()) return;
      const letGo =
        performance.now() >= until ||
        (await engine()
          .then(({ someoneWaits }) => someoneWaits(this.path))
          .catch(() => false));
      if (replaced()) return;
      if (letGo) return this.closeDb();
      this.watching = setTimeout(() => void look(), this.watchMs);
      this.watching.unref();
    };
    void look();
  }

  private async closeDb(): Promise<void> {
    clearTimeout(this.watching);
    const db = this.db;
    this.db = undefined;
    const open = await db?.catch(() => undefined);
    if (!open) return;
    open.close();
    // the file is let go once the results of the reads are gone too (query_sql stops reading a long one)
    await (await engine()).freeUnfinishedResults();
  }

  private busy(message: string): UsageError {
    const since = this.writer ? ` since ${this.writer.since.toISOString()}` : '';
    return new UsageError(`${message}${since}`, {
      hint: 'wait until the sync ends (its progress notifications tell how far it is), then call the tool again',
    });
  }
}

/** Beside `verifiedAt` in list_tables and describe_table: whether the table is past the bound its follower keeps (staleFields). */
export const staleSchema = {
  maxStale: z
    .number()
    .nullable()
    .describe('the bound (seconds) its follower, sync --follow --max-stale, keeps verifiedAt within; null: none recorded'),
  stale: z.boolean().describe('verifiedAt is older than maxStale: changes to old rows may not be in the mirror yet'),
  staleFor: z.number().nullable().describe('seconds past maxStale; null when not stale'),
};

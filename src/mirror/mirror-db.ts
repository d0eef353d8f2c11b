import { rmdir } from 'node:fs/promises';
import { type Context, UsageError, lockAddress, namedLockHolder, tryNamedLock, type ProcessLock } from '../core/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  attachDatabase,
  describeHolder,
  MAX_PAUSE_MS,
  openDatabase,
  someoneWaits,
  type Database,
  type OpenOptions,
  type FileAccess,
  quoteLiteral,
} from '../duckdb/index.js';
import { SYNCS_TABLE_2, upgradeFormat1 } from './history/upgrade-format-1.js';

// A mirror is a DuckDB file: one table per service table (with its history table and macros), and the
// tables below that describe it. Its format version is the comment of _tds_tables, so a newer format
// is refused, not misread. Format 1 (before history) is upgraded by the first sync that writes it.

export const MIRROR_FORMAT = 2;
const FORMAT_COMMENT = (version: number): string => `tds mirror format ${version}`;

const META_TABLES = [
  `CREATE TABLE IF NOT EXISTS _tds_tables (
    table_id VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    workspace_id VARCHAR,
    workspace_name VARCHAR,
    mirror_table VARCHAR NOT NULL UNIQUE,
    header VARCHAR NOT NULL,
    newest_created_at TIMESTAMPTZ,
    pending_since TIMESTAMPTZ,
    watermark TIMESTAMPTZ,
    row_count BIGINT,
    service_row_count BIGINT,
    last_sync_at TIMESTAMPTZ,
    pass_mode VARCHAR,
    pass_cursor VARCHAR,
    pass_started_at TIMESTAMPTZ,
    pass_top TIMESTAMPTZ,
    pass_oldest TIMESTAMPTZ,
    pass_requests BIGINT,
    pass_rows BIGINT,
    pass_inserted BIGINT,
    pass_updated BIGINT,
    pass_unfit BIGINT,
    history_table VARCHAR,
    at_sync_macro VARCHAR,
    at_macro VARCHAR,
    verified_at TIMESTAMPTZ,
    verify_pass VARCHAR,
    max_stale INTERVAL
  )`,
  `CREATE TABLE IF NOT EXISTS _tds_columns (
    table_id VARCHAR NOT NULL,
    field_id VARCHAR NOT NULL,
    position INTEGER NOT NULL,
    key VARCHAR NOT NULL,
    status_key VARCHAR,
    error_key VARCHAR,
    label VARCHAR,
    name VARCHAR,
    type VARCHAR,
    options JSON,
    is_system BOOLEAN,
    removed BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (table_id, field_id)
  )`,
  SYNCS_TABLE_2,
  // the row IDs a pass in progress has seen (for its deletions); empty between syncs
  `CREATE TABLE IF NOT EXISTS _tds_pass (table_id VARCHAR NOT NULL, row_id VARCHAR NOT NULL)`,
];

export interface OpenMirror {
  readOnly: boolean;
  /** DuckDB's buffer pool: the mirror stays within a few hundred MB however large the tables. */
  memoryLimit?: string;
  /** DuckDB's threads (its default: one per core). */
  threads?: number;
  /** What SQL may do outside the mirror (tds sql); unrestricted when absent. */
  access?: FileAccess;
  /**
   * A writable mirror of an earlier format is left as it is (`tds sql --write`): only a sync upgrades
   * it. Read-only, it always is.
   */
  keepFormat?: boolean;
  /** Told, in one line, that the mirror is of an earlier format (what it lacks, and that a sync upgrades it). */
  note?: (line: string) => void;
  /** While another process holds the file: how long to wait (engine.ts LOCK_WAIT_MS by default), told who it is when long, ended by `signal`. */
  lockWaitMs?: number;
  onWait?(line: string): void;
  signal?: AbortSignal;
}

/** A command's wait for a mirror another process holds: said on stderr when long, ended by Ctrl-C. */
export function waitOn(ctx: Pick<Context, 'io' | 'signal'>): Pick<OpenMirror, 'onWait' | 'signal'> {
  return { onWait: (line) => ctx.io.stderr.write(`tds: ${line}\n`), signal: ctx.signal };
}

/**
 * One sync at a time writes a mirror (its passes judge deletions by what they saw, see pass.ts):
 * a second one is refused, naming the first; `whenBusy: 'skip'` (tds stats) leaves the mirror to it.
 */
export async function claimMirror(ctx: Pick<Context, 'io'>, path: string, whenBusy?: 'skip'): Promise<ProcessLock | undefined> {
  const name = `tds sync ${lockAddress(path)}`;
  const lock = await tryNamedLock(name);
  if (lock) return lock;
  const holder = describeHolder(await namedLockHolder(name));
  if (whenBusy === 'skip') {
    ctx.io.stderr.write(`tds: the mirror ${path} is being synced by ${holder}: its tables as they are\n`);
    return undefined;
  }
  throw new UsageError(`the mirror ${path} is being synced by ${holder}`, {
    hint: 'one sync at a time writes a mirror: wait until it ends (a sync --follow runs until Ctrl-C), or read it meanwhile (tds sql, stats, diff)',
  });
}

/** Opens the mirror; a writable one gets its tables created (and is checked to be one this tds can write). */
export async function openMirror(path: string, options: OpenMirror): Promise<Database> {
  const db = await openDatabase(path, { ...engineOptions(options), readOnly: options.readOnly });
  try {
    await checkFormat(db, path, options);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function engineOptions(options: Omit<OpenMirror, 'readOnly'>): Omit<OpenOptions, 'readOnly'> {
  return {
    what: 'the mirror',
    memoryLimit: options.memoryLimit ?? '256MB',
    ...(options.threads ? { threads: options.threads } : {}),
    ...(options.access ? { access: options.access } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** A newer format refused; a writable mirror made (a new file), upgraded (format 1), or refused (not a mirror). */
async function checkFormat(db: Database, path: string, options: OpenMirror): Promise<void> {
  const version = await formatVersion(db);
  if (version !== undefined && version > MIRROR_FORMAT) {
    throw new UsageError(
      `the mirror ${path} was written by a newer tds (mirror format ${version}; this one reads format ${MIRROR_FORMAT})`,
      {
        hint: 'upgrade tds, or sync into another --db file',
      },
    );
  }
  if (!options.readOnly) await refuseForeign(db, path, version);
  const mark = async (): Promise<void> => {
    await db.connection.run(`COMMENT ON TABLE _tds_tables IS ${quoteLiteral(FORMAT_COMMENT(MIRROR_FORMAT))}`);
  };
  if (!options.readOnly && version === undefined) {
    for (const ddl of META_TABLES) await db.connection.run(ddl);
    await mark();
  } else if (version === 1 && !options.readOnly && !options.keepFormat) {
    await upgradeFormat1(db.connection, mark);
    options.note?.(`the mirror ${path} was upgraded to format ${MIRROR_FORMAT}: every row kept, each table with its history from now on`);
  } else if (version === 1) {
    options.note?.(
      `the mirror ${path} was written by an earlier tds (mirror format 1): it has no history yet; the next tds sync upgrades it`,
    );
  }
  if (!options.readOnly && !(version === 1 && options.keepFormat)) await addColumnsSinceFormat2(db);
}

/** The mirror as sync code reaches it: `use` runs `work` with the mirror open for writing. */
export interface MirrorAccess {
  use<T>(work: (db: Database) => Promise<T>): Promise<T>;
  /**
   * The file is let go at the end of each use (a follower's, HeldMirror `releaseEachUse`): a pass then
   * requests no page while it writes one, so the file is never held across a wait for the service.
   */
  readonly releasesEachUse?: boolean;
}

/** A mirror opened for the caller's whole run (tds push --skip-existing holds it so). */
export const heldOpen = (db: Database): MirrorAccess => ({ use: (work) => work(db) });

/**
 * The mirror with its uses one at a time, in the order they came: tables whose pages are read at once
 * (sync-run.ts) write one after another. A use must not wait for another use.
 */
export function oneAtATime(mirror: MirrorAccess): MirrorAccess {
  let last: Promise<unknown> = Promise.resolve();
  return {
    ...(mirror.releasesEachUse !== undefined ? { releasesEachUse: mirror.releasesEachUse } : {}),
    use<T>(work: (db: Database) => Promise<T>): Promise<T> {
      const turn = last.then(() => mirror.use(work));
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}

/**
 * How long the file stays attached once nothing uses it, unless a process waits for it: the groups of a
 * fast one-shot sync (written about every second) share one attach; a longer wait (pages spaced by the
 * row-read limit) lets it go. A follower lets it go at once (`releaseEachUse`): a DuckDB client that does
 * not wait (DuckDB's own CLI, a notebook) gets in whenever the follower is not writing.
 */
const LINGER_MS = 1_500;
/** The name the mirror has while a sync holds it. */
const ATTACHED = 'tds_mirror';
/**
 * The WAL a commit of a follower may leave before DuckDB checkpoints: none. Until a checkpoint, DuckDB
 * holds in memory the rows a commit added to a table of the file, 512 KB a column even for one row (10 MB
 * for a table of 20 columns): a follower writing a few rows to each of several tables and their state
 * rows between two checkpoints held 30-40 MB so, most of its RSS swings. A one-shot sync is left to
 * DuckDB's own threshold (16 MB of WAL) and its detach: a checkpoint (an fsync) at each of its commits
 * made the sync tests take 15 % longer.
 */
const CHECKPOINT_WAL = '0b';

/**
 * The mirror as a sync writes it, held only while it writes. The sync has a DuckDB database of its own,
 * in memory (where the rows read wait for their group: mirror-writer.ts), and the mirror file is
 * attached to it by `use` and detached (DuckDB checkpoints it and lets it go) once nothing has used it
 * for LINGER_MS, or at once at the end of a use when a process waits for it (engine.ts someoneWaits).
 * Detaching is not free (a checkpoint: tens of ms, more for a large table): a detach after each group
 * cost a first sync of 1,000,000 rows 14 % more CPU (15.2 s against 13.3 s, paired runs).
 */
export class HeldMirror implements MirrorAccess {
  readonly releasesEachUse: boolean;
  private users = 0;
  private attached = false;
  private formatChecked = false;
  private releaseSoon: NodeJS.Timeout | undefined;
  /** Attaching or detaching: one at a time. */
  private moving: Promise<void> = Promise.resolve();

  /** What `use` hands its work: the sync's database, whose tables are the mirror's. */
  readonly db: Database;
  /**
   * The work's connections: each has the mirror as its database while it is attached, and the sync's
   * own while it is not (so that what runs on them meanwhile, rows appended to an inbox, still runs).
   * Rows appended straight into a mirror table wait in their appender while the file is let go: DuckDB
   * finds the table again by its catalog's name (ATTACHED) when a group's transaction hands them over.
   */
  private connections: DuckDBConnection[];

  private constructor(
    private readonly path: string,
    private readonly own: Database,
    private readonly control: DuckDBConnection,
    private readonly options: OpenMirror,
    releaseEachUse: boolean,
  ) {
    this.releasesEachUse = releaseEachUse;
    this.connections = [own.connection];
    this.db = { ...own, path, connect: () => this.connect() };
  }

  /** For a follower: `checkpointEachCommit` (CHECKPOINT_WAL), `releaseEachUse` (the file let go at the end of each use, not LINGER_MS after it). */
  static async open(
    path: string,
    options: Omit<OpenMirror, 'readOnly'> & { checkpointEachCommit?: boolean; releaseEachUse?: boolean },
  ): Promise<HeldMirror> {
    const own = await openDatabase(':memory:', { ...engineOptions(options), readOnly: false, privateFiles: true });
    try {
      // DuckDB spills beside the mirror, as it does for a database opened from its file (an in-memory one would use ./.tmp)
      await own.connection.run(`SET temp_directory = ${quoteLiteral(`${path}.tmp`)}`);
      if (options.checkpointEachCommit) await own.connection.run(`SET checkpoint_threshold = '${CHECKPOINT_WAL}'`);
      return new HeldMirror(path, own, await own.connect(), { ...options, readOnly: false }, options.releaseEachUse ?? false);
    } catch (error) {
      own.close();
      throw error;
    }
  }

  private async connect(): Promise<DuckDBConnection> {
    const connection = await this.own.connect();
    this.connections.push(connection);
    if (this.attached) await connection.run(`USE ${ATTACHED}`);
    return connection;
  }

  /** Every connection of the work on `database` (a closed one is forgotten). */
  private async useDatabase(database: string): Promise<void> {
    const open: DuckDBConnection[] = [];
    for (const connection of this.connections) {
      if (
        await connection.run(`USE ${database}`).then(
          () => true,
          () => false,
        )
      )
        open.push(connection);
    }
    this.connections = open;
  }

  async use<T>(work: (db: Database) => Promise<T>): Promise<T> {
    this.users += 1;
    clearTimeout(this.releaseSoon);
    try {
      await this.attach();
      return await work(this.db);
    } finally {
      this.users -= 1;
      if (this.users === 0) {
        // a waiting reader gets its turn now; else once nothing has used the file for LINGER_MS
        if (this.releasesEachUse || (await someoneWaits(this.path))) await this.release();
        else if (this.users === 0) this.releaseSoon = setTimeout(() => void this.release(), LINGER_MS);
      }
    }
  }

  /** Detaches the mirror now (unless in use): before a hook of this process opens the file itself. */
  letGo(): Promise<void> {
    clearTimeout(this.releaseSoon);
    return this.release();
  }

  /** Detaches the mirror and closes the sync's database (what a stuck statement runs in is left alone: Database.abandon). */
  async close(): Promise<void> {
    clearTimeout(this.releaseSoon);
    await this.release();
    this.own.close();
    // DuckDB leaves the spill folder it made, empty; one still holding files (a stuck statement) stays
    await rmdir(`${this.path}.tmp`).catch(() => undefined);
  }

  private attach(): Promise<void> {
    this.moving = this.moving.then(async () => {
      if (this.attached) return;
      // a process waiting for the file goes first (it tries again within MAX_PAUSE_MS)
      for (let waited = 0; waited < 4 * MAX_PAUSE_MS && (await someoneWaits(this.path)); waited += GIVE_WAY_STEP_MS) {
        await sleep(GIVE_WAY_STEP_MS);
      }
      await attachDatabase(this.control, this.path, ATTACHED, { ...engineOptions(this.options), readOnly: false });
      try {
        await this.useDatabase(ATTACHED);
        if (!this.formatChecked) await checkFormat(this.db, this.path, this.options);
        this.formatChecked = true;
      } catch (error) {
        await this.useDatabase('memory');
        await this.control.run(`DETACH ${ATTACHED}`).catch(() => undefined);
        throw error;
      }
      this.attached = true;
    });
    const attached = this.moving;
    // a failed attach fails its use; the next one tries again
    this.moving = attached.catch(() => undefined);
    return attached;
  }

  /** Never fails: a mirror that cannot be detached now stays attached (the next release tries again). */
  private release(): Promise<void> {
    this.moving = this.moving.then(async () => {
      if (!this.attached || this.users > 0) return;
      await this.useDatabase('memory');
      await this.control.run(`DETACH ${ATTACHED}`).then(
        () => (this.attached = false),
        () => undefined,
      );
    });
    return this.moving;
  }
}

const GIVE_WAY_STEP_MS = 10;

/**
 * The columns of verifications (issue 30), of the bound a follower keeps (issue 42) and of a sync's end on
 * the service's clock (issue 41), added to a mirror of format 2 made before them: none is the same as null.
 */
async function addColumnsSinceFormat2(db: Database): Promise<void> {
  await db.connection.run('ALTER TABLE _tds_tables ADD COLUMN IF NOT EXISTS verified_at TIMESTAMPTZ');
  await db.connection.run('ALTER TABLE _tds_tables ADD COLUMN IF NOT EXISTS verify_pass VARCHAR');
  await db.connection.run('ALTER TABLE _tds_tables ADD COLUMN IF NOT EXISTS max_stale INTERVAL');
  await db.connection.run('ALTER TABLE _tds_syncs ADD COLUMN IF NOT EXISTS service_ended_at TIMESTAMPTZ');
}

/**
 * A database that is not a mirror is written only when it is empty (a new file): the tables of another
 * program are not ours to add to, nor are their names ours to take. Checked before anything is written.
 */
async function refuseForeign(db: Database, path: string, version: number | undefined): Promise<void> {
  const hint = { hint: 'give --db a new file name (or a mirror made by tds sync)' };
  if (version === 0) throw new UsageError(`${path} is not a tds mirror: its table _tds_tables is not one tds made`, hint);
  if (version !== undefined) return;
  const objects = await userObjects(db);
  if (objects.length === 0) return;
  throw new UsageError(
    `${path} is a DuckDB database that is not a tds mirror (it holds ${objects.join(', ')}${objects.length === FOREIGN_SHOWN ? ', …' : ''}): tds writes only to its own mirrors`,
    hint,
  );
}

const FOREIGN_SHOWN = 3;

/** A few of the database's own objects (tables, views, sequences, macros, types, schemas), as `table leads`. */
export async function userObjects(db: Database): Promise<string[]> {
  const here = 'database_name = current_database()';
  const reader = await db.connection.runAndReadAll(
    `SELECT what FROM (
      SELECT 'table ' || table_name AS what FROM duckdb_tables() WHERE ${here}
      UNION ALL SELECT 'view ' || view_name FROM duckdb_views() WHERE ${here} AND NOT internal
      UNION ALL SELECT 'sequence ' || sequence_name FROM duckdb_sequences() WHERE ${here}
      UNION ALL SELECT 'macro ' || function_name FROM duckdb_functions() WHERE ${here} AND NOT internal
      UNION ALL SELECT 'type ' || type_name FROM duckdb_types() WHERE ${here} AND NOT internal
      UNION ALL SELECT 'schema ' || schema_name FROM duckdb_schemas() WHERE ${here} AND NOT internal
    ) ORDER BY what LIMIT ${FOREIGN_SHOWN}`,
  );
  return reader.getRowObjectsJS().map((row) => String(row.what));
}

/** Refuses a database that is not a tds mirror (a plain DuckDB file given to --db), before a read fails on it. */
export async function requireMirror(db: Database): Promise<number> {
  const version = await formatVersion(db);
  if (!version) throw new UsageError(`${db.path} is not a tds mirror`, { hint: 'give --db the mirror made by tds sync' });
  return version;
}

/** The format a mirror says it has; undefined for a database without _tds_tables (new, or not a mirror); 0 for a _tds_tables tds did not make. */
export async function formatVersion(db: Database): Promise<number | undefined> {
  const reader = await db.connection.runAndReadAll(
    "SELECT comment FROM duckdb_tables() WHERE table_name = '_tds_tables' AND schema_name = 'main' AND database_name = current_database()",
  );
  const rows = reader.getRowObjectsJS();
  if (rows.length === 0) return undefined;
  const match = /format (\d+)/.exec(String(rows[0]!.comment ?? ''));
  return match ? Number(match[1]) : 0;
}

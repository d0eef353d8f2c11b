import { type Context, TdsError } from '../core/index.js';
import { startLiveLine, type LiveLine } from '../output/index.js';
import type { RateWindow } from '../http/index.js';
import type { Table } from '../service/index.js';
import type { PassProgress } from './read-pages.js';
import type { TableSyncResult } from './sync-table.js';
import type { Database } from '../duckdb/index.js';
import { createRecordWriter } from '../output/page-encoder.js';
import type { OutputRecord } from '../records/index.js';
import { diffOfSync } from './diff/open-diff.js';
import { formatAge, loadStates, staleFields, staleText, type StaleFields } from './table-state.js';
import type { StaleTable } from './follow-verify.js';

// What a sync tells: its progress line on a terminal while it runs, its summary (a line per table, or
// --json), and with --changes the records of what each sync changed (ChangesStream).

/** The progress line of a sync on a terminal: tables done, rows, rate, and an ETA of the whole run at the row-read limit the tables share. */
export interface SyncProgress extends PassProgress {
  table(table: Table): void;
  /** Prints a message above the line. */
  note(text: string): void;
  stop(): void;
}

/**
 * `rowWindow`: the row-read limit as the client's limiter spaces it (its rate scale counted), which the ETA counts on;
 * `rowReadWaitMs`: how long the next page waits for that limit (the line says so instead of standing still).
 */
export async function startSyncProgress(
  ctx: Context,
  tables: readonly Table[],
  rowWindow: RateWindow,
  rowReadWaitMs: () => number = () => 0,
): Promise<SyncProgress | undefined> {
  if (!ctx.io.stderrIsTTY || tables.length === 0) return undefined;
  const perMinute = rowWindow.requests / (rowWindow.perMs / 60_000);
  const started = Date.now();
  let done = -1;
  let current: Table | undefined;
  let rows = 0;
  let tableRows = 0;
  const render = (): string => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
    const here = pagesOf(Math.max(0, (current?.rowCount ?? 0) - tableRows));
    const later = tables.slice(done + 1).reduce((sum, table) => sum + Math.max(1, pagesOf(table.rowCount)), 0);
    const eta = here + later > 0 ? ` · ${etaText(here, later, perMinute)}` : '';
    const waitMs = rowReadWaitMs();
    const waiting = waitMs >= 1000 ? ` · waiting for the row-read limit, ${Math.ceil(waitMs / 1000)} s` : '';
    return `tables ${Math.max(0, done)}/${tables.length} · ${current?.name ?? ''}: ${tableRows.toLocaleString('en-US')} rows · ${rate.toLocaleString('en-US')} rows/s${waiting}${eta}`;
  };
  const line: LiveLine = await startLiveLine(ctx.io, render, 1000);
  return {
    table(table) {
      done += 1;
      current = table;
      tableRows = 0;
      line.refresh();
    },
    continues(saved) {
      // rows an earlier sync read: left out of this run's rate, counted in what is left
      tableRows = saved;
      line.refresh();
    },
    page(total) {
      rows += total - tableRows;
      tableRows = total;
      line.refresh();
    },
    note: (text) => line.note(text),
    stop: () => line.stop(),
  };
}

const pagesOf = (rows: number): number => Math.ceil(rows / 100);

/**
 * The follower's line on a terminal while it waits for its next round or page: how many tables it
 * follows, when the next round is, and each table past --max-stale (`maxStaleMs` as given; `stale` ages
 * as --max-stale counts them).
 */
export function followLineText(follow: {
  tables: number;
  nextRoundMs: number;
  maxStaleMs: number | undefined;
  stale: readonly StaleTable[];
}): string {
  const next = `next round in ${Math.max(0, Math.ceil(follow.nextRoundMs / 1000))} s`;
  const line = `following ${follow.tables} ${follow.tables === 1 ? 'table' : 'tables'} · ${next}`;
  if (follow.stale.length === 0 || follow.maxStaleMs === undefined) return line;
  const bound = formatAge(follow.maxStaleMs);
  const stale = follow.stale.map((table) => `${table.name} (last verified ${formatAge(table.ageMs)} ago)`).join(', ');
  return `${line} · stale, past --max-stale ${bound}: ${stale}`;
}

/**
 * The time left at the most: every table is read at the row-read limit they all share (`perMinute` requests, 100 rows
 * each), and a table's sync never reads more pages than the table has (an incremental one, fewer).
 */
function etaText(pagesHere: number, pagesLater: number, perMinute: number): string {
  const all = `at most ${formatMinutes((pagesHere + pagesLater) / perMinute)} left`;
  return pagesLater > 0 && pagesHere > 0 ? `${all} (${formatMinutes(pagesHere / perMinute)} on this table)` : all;
}

function formatMinutes(minutes: number): string {
  if (minutes < 1) return `${Math.ceil(minutes * 60)}s`;
  if (minutes < 60) return `${Math.round(minutes)}m`;
  return `${Math.floor(minutes / 60)}h ${Math.round(minutes % 60)}m`;
}

/** What `tds sync --json` prints: the mirror and a row per table (beside `verifiedAt`, whether it is past its bound: StaleFields). */
export interface SyncSummary {
  db: string;
  tables: Array<Omit<TableSyncResult, 'startedAt' | 'seconds' | 'maxStaleMs'> & { seconds: number } & StaleFields>;
}

/** `now`: the service's clock (ms), which verifiedAt is on. */
export function syncSummary(db: string, results: readonly TableSyncResult[], now: number): SyncSummary {
  return {
    db,
    tables: results.map(({ startedAt: _startedAt, seconds, maxStaleMs, ...rest }) => ({
      ...rest,
      seconds: Math.round(seconds * 100) / 100,
      ...staleFields({ verifiedAt: rest.verifiedAt, maxStaleMs }, now),
    })),
  };
}

/** `verified …` as the summary and the follower's line say it: when, and past its bound by how much. */
export function verifiedText(table: { verifiedAt: string | null } & StaleFields): string {
  if (table.verifiedAt === null) return 'not verified yet';
  const when = `verified ${table.verifiedAt.replace(/\.\d+Z$/, 'Z')}`;
  return table.stale ? `${when} (${staleText(table)})` : when;
}

const n = (value: number): string => value.toLocaleString('en-US');

/** One line per table on stderr: `leads  incremental  2 requests  120 read  +3 ~117 -0  1.4 s`. */
export function formatSyncSummary(summary: SyncSummary): string {
  if (summary.tables.length === 0) return `nothing to sync in ${summary.db}\n`;
  const rows = summary.tables.map((table) => [
    table.mirrorTable,
    `${table.mode}${table.complete ? '' : ' (interrupted)'}`,
    `${n(table.requests)} ${table.requests === 1 ? 'request' : 'requests'}`,
    `${n(table.rowsRead)} read`,
    `${n(table.inserted)} inserted`,
    `${n(table.updated)} updated`,
    `${n(table.deleted)} deleted`,
    ...(table.missing > 0 ? [`${n(table.missing)} ${table.missing === 1 ? 'row' : 'rows'} of the service missing`] : []),
    ...(table.unfit > 0 ? [`${n(table.unfit)} values that did not fit (NULL)`] : []),
    ...(table.pruned !== null ? [`${n(table.pruned)} old ${table.pruned === 1 ? 'version' : 'versions'} pruned`] : []),
    `${table.seconds.toFixed(1)} s`,
    verifiedText(table),
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const lines = rows.map(
    (row) =>
      `  ${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}`,
  );
  return `synced ${summary.db}\n${lines.join('\n')}\n`;
}

/**
 * The error a sync ends with when a table's mirror lacks rows the service lists after the sync read
 * every page it could (exit 6: the service answered what its rules rule out); undefined when none does.
 */
export function missingRowsError(results: readonly TableSyncResult[]): TdsError | undefined {
  const short = results.filter((result) => result.missing > 0);
  if (short.length === 0) return undefined;
  const tables = short.map((result) => `${result.name} lacks ${n(result.missing)} of ${result.missing === 1 ? 'its row' : 'its rows'}`);
  return new TdsError(
    'GAVE_UP',
    `the mirror is not complete: ${tables.join('; ')} that the service lists, after reading every page of the table (the service lists rows its pages do not return)`,
    { hint: 'run `tds sync` again later; if the rows stay missing, `tds sync --full` reads every row afresh' },
  );
}

/**
 * Ctrl-C during a sync, as an export's says it: what the mirror keeps (the tables done, the rows of the
 * interrupted pass saved so far) and that the next `tds sync` continues from there.
 */
export function interruptedSync(where: { db: string; table: string; savedRows: number; tablesDone: number }): TdsError {
  const done = where.tablesDone > 0 ? `; ${n(where.tablesDone)} ${where.tablesDone === 1 ? 'table' : 'tables'} synced before it` : '';
  return new TdsError(
    'INTERRUPTED',
    `the sync of ${where.table} stopped: ${n(where.savedRows)} ${where.savedRows === 1 ? 'row' : 'rows'} of it kept in ${where.db}${done}`,
    { hint: 'the next `tds sync` continues where this one stopped (what is saved is not read again)' },
  );
}

const KEYS = ['table', 'tableId', 'syncId', 'change', '_id', 'before', 'after'];

/**
 * How far each table's stream of changes was delivered: the last sync whose records were all written
 * to stdout. A table gets its row the first time `--changes` syncs it (from its last sync then on).
 */
const DELIVERED_TABLE = `CREATE TABLE IF NOT EXISTS _tds_changes (table_id VARCHAR PRIMARY KEY, delivered_sync BIGINT NOT NULL)`;

/**
 * `tds sync --changes`: the diff records of what each sync of a table changed, on stdout as NDJSON,
 * each with the mirror table's name, the table's ID and the sync's ID, delivered at least once and in
 * sync order. Every writer of versions goes through it: whatever committed versions under a sync
 * (a sync, a pass killed midway, a verification) is delivered by the next `deliver` of that table once
 * the sync has ended (or died), and the mirror notes the sync delivered only after its last record was
 * handed to stdout. A closed pipe, a crash or a kill before that leaves the sync to be delivered again,
 * whole, first thing by the next `--changes`: a record delivered twice is the same record, the pair
 * (`syncId`, `_id`) names it. Records are written whole, Ctrl-C or not.
 */
export class ChangesStream {
  private constructor(
    private readonly ctx: Context,
    private readonly db: Database,
  ) {}

  /** The stream of a writable mirror (its table of positions made if need be). */
  static async open(ctx: Context, db: Database): Promise<ChangesStream> {
    await db.connection.run(DELIVERED_TABLE);
    return new ChangesStream(ctx, db);
  }

  /**
   * Writes the records of every sync of the table not delivered yet, oldest first, each noted delivered
   * once written. Call it when no sync of the table is under way (the writer holds the mirror): before
   * a table's sync (what an earlier run committed and did not deliver), and after it, failed or not.
   */
  async deliver(tableId: string): Promise<void> {
    const { connection } = this.db;
    const known = await connection.runAndReadAll('SELECT delivered_sync FROM _tds_changes WHERE table_id = $1', [tableId]);
    const delivered = known.getRowObjectsJS()[0]?.delivered_sync;
    if (delivered === undefined) {
      // a table's first --changes: its stream starts after what it held already
      await connection.run('INSERT INTO _tds_changes SELECT $1, coalesce(max(sync_id), 0) FROM _tds_syncs WHERE table_id = $1', [tableId]);
      return;
    }
    const undelivered = await connection.runAndReadAll(
      'SELECT sync_id FROM _tds_syncs WHERE table_id = $1 AND sync_id > $2 ORDER BY sync_id',
      [tableId, Number(delivered)],
    );
    for (const row of undelivered.getRowObjectsJS()) {
      const syncId = Number(row.sync_id);
      await this.write(tableId, syncId);
      await connection.run('UPDATE _tds_changes SET delivered_sync = $2 WHERE table_id = $1', [tableId, syncId]);
    }
  }

  private async write(tableId: string, syncId: number): Promise<void> {
    const state = (await loadStates(this.db.connection)).find((candidate) => candidate.tableId === tableId);
    if (!state?.historyTable) return;
    const diff = await diffOfSync(this.db, state, syncId);
    const { stdout } = this.ctx.io;
    const writer = createRecordWriter(stdout, { format: 'ndjson', columns: KEYS });
    for await (const record of diff.records()) {
      await writer.write({ table: state.mirrorTable, tableId, syncId, ...record } as unknown as OutputRecord);
    }
    await writer.end();
    // handed to the system: the callback of a write comes after those before it
    await new Promise<void>((resolve, reject) => stdout.write('', (error) => (error ? reject(error) : resolve())));
  }
}

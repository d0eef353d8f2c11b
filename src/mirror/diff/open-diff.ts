import type { DuckDBConnection } from '@duckdb/node-api';
import { TdsError, UsageError, parseDuration, didYouMean } from '../../core/index.js';
import type { Database } from '../../duckdb/index.js';
import { isCalendarDate } from '../../filter/index.js';
import { historyHorizon, type HistoryHorizon } from '../history/history-objects.js';
import { versionColumns } from '../history/retyped-columns.js';
import { requireMirror } from '../mirror-db.js';
import { loadStates, namedStates, type TableState } from '../table-state.js';
import { TableDiff, type DiffKey, type Moment } from './table-diff.js';
// `tds diff` (and the MCP tool diff_table): a mirror table found by its ID or name, WHEN resolved
// against its syncs, and the diff ready to stream. Reads only the mirror.

export interface DiffRequest {
  /** The service table's ID or exact name, or the mirror table's name. */
  table: string;
  /** WHEN (parseWhen below); default the state before the table's last sync that changed a row (beforeLastChange). */
  since?: string;
  /** WHEN; default `now`, the table as it is. */
  until?: string;
  /** The current time for durations (ms); default the clock. */
  now?: number;
}

/** A moment as asked, as resolved, and in words. */
export interface ResolvedMoment {
  given: string;
  moment: Moment;
  /** `sync 12`, `before the first sync`, `2026-03-01T12:00:00.000Z`, `now`. */
  label: string;
}

export interface OpenedDiff {
  tableId: string;
  name: string;
  mirrorTable: string;
  /** _tds_tables.verified_at: rows created before it are exact as of then or later. */
  verifiedAt: string | null;
  /** _tds_tables.max_stale: the bound its follower keeps verified_at within (ms); null: none. */
  maxStaleMs: number | null;
  since: ResolvedMoment;
  until: ResolvedMoment;
  diff: TableDiff;
}

export async function openDiff(db: Database, request: DiffRequest): Promise<OpenedDiff> {
  await checkHistory(db);
  const state = await findTable(db, request.table);
  const syncs = await syncIds(db, state.tableId);
  const resolve = (given: string, option: string): ResolvedMoment =>
    resolveMoment(given, parseWhen(given, option, request.now), syncs, state);
  const since = resolve(
    request.since ?? (await beforeLastChange(db, state.tableId)) ?? (syncs.length === 0 ? 'sync:-1' : 'sync:-2'),
    '--since',
  );
  const until = resolve(request.until ?? 'now', '--until');
  const horizon = await historyHorizon(db.connection, state.mirrorTable);
  const seenFrom = await firstSeen(db, state.tableId);
  for (const [option, moment] of [
    ['--since', since],
    ['--until', until],
  ] as const) {
    if (horizon) checkKnown(state, horizon, option, moment);
    checkSeen(state, seenFrom, option, moment);
  }
  return {
    tableId: state.tableId,
    name: state.name,
    mirrorTable: state.mirrorTable,
    verifiedAt: state.verifiedAt,
    maxStaleMs: state.maxStaleMs,
    since,
    until,
    diff: await diffOf(db, state, since.moment, until.moment),
  };
}

/** What the table's sync `syncId` changed: the table after its sync before that one, against after that one. */
export async function diffOfSync(db: Database, state: TableState, syncId: number): Promise<TableDiff> {
  const reader = await db.connection.runAndReadAll(
    'SELECT coalesce(max(sync_id), 0)::BIGINT AS id FROM _tds_syncs WHERE table_id = $1 AND sync_id < $2',
    [state.tableId, syncId],
  );
  const previous = Number(reader.getRowObjectsJS()[0]!.id);
  return diffOf(db, state, { kind: 'sync', n: previous }, { kind: 'sync', n: syncId });
}

async function diffOf(db: Database, state: TableState, since: Moment, until: Moment): Promise<TableDiff> {
  const keys = await diffKeys(db.connection, state.tableId, state.mirrorTable);
  return new TableDiff(db.connection, { table: state.mirrorTable, historyTable: state.historyTable! }, keys, { since, until });
}

/**
 * When the mirror first held the whole table: the end of its first sync that completed (a first sync
 * killed midway is completed by the next), on the service's clock as the history's moments are; a sync
 * recorded before tds kept that (or read-only, before the column was added) has only this machine's.
 * Null before one has.
 */
async function firstSeen(db: Database, tableId: string): Promise<string | null> {
  const have = await db.connection.runAndReadAll(
    "SELECT 1 FROM duckdb_columns() WHERE table_name = '_tds_syncs' AND column_name = 'service_ended_at' AND database_name = current_database()",
  );
  const ended = have.getRowObjectsJS().length > 0 ? 'coalesce(service_ended_at, ended_at)' : 'ended_at';
  const reader = await db.connection.runAndReadAll(
    `SELECT min(${ended}) AS seen FROM _tds_syncs WHERE table_id = $1 AND complete AND ended_at IS NOT NULL`,
    [tableId],
  );
  const seen = reader.getRowObjectsJS()[0]?.seen;
  return seen === null || seen === undefined ? null : new Date(seen as Date).toISOString();
}

/**
 * A moment of the clock before the mirror first held the table is an error that names the earliest it
 * answers for: the history knows the versions its syncs saw, and a row changed since that moment had a
 * version then that no sync saw (it would show as added). sync:0, before the first sync, stays valid.
 */
function checkSeen(state: TableState, seenFrom: string | null, option: string, resolved: ResolvedMoment): void {
  const { moment } = resolved;
  if (moment.kind !== 'time' || (seenFrom !== null && Date.parse(moment.at) >= Date.parse(seenFrom))) return;
  const asked = `${option} ${resolved.given} (${resolved.label})`;
  const empty = 'sync:0 (before the first sync, the table empty)';
  if (seenFrom === null)
    throw new UsageError(`${asked}: no sync of ${state.mirrorTable} has completed yet, so the mirror answers for no moment of the clock`, {
      hint: `give ${empty} or sync:N`,
    });
  throw new UsageError(
    `${asked} is before the mirror held ${state.mirrorTable}: it answers for ${seenFrom} (the end of the table's first sync) and later`,
    { hint: `give ${seenFrom} or later, sync:N, or ${empty}` },
  );
}

/** A moment before what a pruned history still knows is an error that names the earliest it answers for. */
function checkKnown(state: TableState, horizon: HistoryHorizon, option: string, resolved: ResolvedMoment): void {
  const { moment } = resolved;
  const before =
    (moment.kind === 'sync' && moment.n < horizon.fromSync) || (moment.kind === 'time' && Date.parse(moment.at) < Date.parse(horizon.from));
  if (!before) return;
  throw new UsageError(
    `${option} ${resolved.given} (${resolved.label}) is before what the history of ${state.mirrorTable} still knows: --prune-history dropped the versions replaced until ${horizon.from}`,
    { hint: `the mirror answers for sync:${horizon.fromSync} and later, or ${horizon.from} and later` },
  );
}

async function checkHistory(db: Database): Promise<void> {
  const version = await requireMirror(db);
  if (version === 1) {
    throw new UsageError(`the mirror ${db.path} has no history yet: it was written by an earlier tds (mirror format 1)`, {
      hint: 'the next `tds sync` upgrades it (every row kept); diffs cover what syncs bring from then on',
    });
  }
}

/** The mirror table of a service table ID, or a service table's or mirror table's name (exact, else ignoring case). */
export async function findTable(db: Database, ref: string): Promise<TableState> {
  const states = await loadStates(db.connection);
  const named = namedStates(
    states.map((state) => ({ state })),
    ref,
  );
  if (named.length > 1) {
    throw new UsageError(
      `the table name "${ref}" matches ${named.length} tables of the mirror: ${named.map(({ state }) => `${state.tableId} (${state.mirrorTable})`).join(', ')}`,
      {
        hint: 'give the table ID or the mirror table name instead',
      },
    );
  }
  if (named[0]) return named[0].state;
  const near = didYouMean(
    ref,
    states.flatMap((state) => [state.name, state.mirrorTable]),
  );
  throw new TdsError('NOT_FOUND', `the mirror ${db.path} has no table "${ref}"`, {
    hint:
      near ??
      `\`tds sync ${/\s/.test(ref) ? JSON.stringify(ref) : ref}\` mirrors it first; ${states.length > 0 ? `the mirror has ${states.map((state) => state.mirrorTable).join(', ')}` : 'the mirror has no tables yet'}`,
  });
}

/**
 * The default --since: before the table's last sync that changed a row (`sync:N`, the sync before it,
 * 0 before the first); undefined when no sync changed one. A sync that changed nothing (the one tds
 * stats runs first, an idle round) does not empty the default diff.
 */
async function beforeLastChange(db: Database, tableId: string): Promise<string | undefined> {
  const reader = await db.connection.runAndReadAll(
    `WITH changed AS (
       SELECT max(sync_id) AS id FROM _tds_syncs
       WHERE table_id = $1 AND coalesce(inserted, 0) + coalesce(updated, 0) + coalesce(deleted, 0) > 0
     )
     SELECT (SELECT coalesce(max(sync_id), 0) FROM _tds_syncs WHERE table_id = $1 AND sync_id < changed.id)::BIGINT AS before
     FROM changed WHERE changed.id IS NOT NULL`,
    [tableId],
  );
  const row = reader.getRowObjectsJS()[0];
  if (!row) return undefined;
  const before = Number(row.before);
  return before === 0 ? `sync:-${(await syncIds(db, tableId)).length + 1}` : `sync:${before}`;
}

async function syncIds(db: Database, tableId: string): Promise<number[]> {
  const reader = await db.connection.runAndReadAll('SELECT sync_id FROM _tds_syncs WHERE table_id = $1 ORDER BY sync_id', [tableId]);
  return reader.getRowObjectsJS().map((row) => Number(row.sync_id));
}

function resolveMoment(given: string, when: When, syncs: readonly number[], state: TableState): ResolvedMoment {
  if (when.kind === 'now') return { given, moment: when, label: 'now' };
  if (when.kind === 'time') return { given, moment: when, label: when.at };
  const n = when.n > 0 ? (syncs.includes(when.n) ? when.n : undefined) : relativeSync(syncs, -when.n);
  if (n === undefined) {
    const shown = syncs.slice(-10).join(', ');
    throw new UsageError(`sync:${when.n} is not a sync of ${state.mirrorTable}`, {
      hint:
        syncs.length === 0
          ? `${state.mirrorTable} has no sync yet`
          : `its syncs are ${syncs.length > 10 ? `… ${shown} (${syncs.length} in all)` : shown}; sync:-1 is the last, sync:-${syncs.length + 1} before the first`,
    });
  }
  return { given, moment: { kind: 'sync', n }, label: n === 0 ? 'before the first sync' : `sync ${n}` };
}

/** sync:-k: the k-th last sync; one more than there are: before the first (0). */
function relativeSync(syncs: readonly number[], k: number): number | undefined {
  if (k === 0) return 0;
  if (k <= syncs.length) return syncs[syncs.length - k];
  return k === syncs.length + 1 ? 0 : undefined;
}

const META = ['_createdAt', '_updatedAt', '_createdByUserId'];

/**
 * The keys a diff compares, keyed like an export: the meta keys (but `_id`, which names the record),
 * then each field's column with its `.status` and `.error`, in schema order (a removed field's kept
 * column after them); not `_truncated` nor `_syncId`, which the mirror keeps for itself. Each is read as
 * the version's own value (a retype's kept column for the versions before it).
 */
export async function diffKeys(connection: DuckDBConnection, tableId: string, mirrorTable: string): Promise<DiffKey[]> {
  const reader = await connection.runAndReadAll(
    'SELECT key, status_key, error_key FROM _tds_columns WHERE table_id = $1 ORDER BY removed, position',
    [tableId],
  );
  const fields = reader
    .getRowObjectsJS()
    .flatMap((row) => [row.key, row.status_key, row.error_key].filter((key) => key !== null).map(String));
  const columns = new Map((await versionColumns(connection, mirrorTable)).map((column) => [column.key, column]));
  return [...META, ...fields].filter((key) => columns.has(key)).map((key) => columns.get(key)!);
}

// `tds diff --since/--until WHEN`: `sync:N` (a sync's ID; `sync:-1` the table's last sync, `sync:-2`
// the one before), an ISO 8601 date-time, a duration ago (`90m`, `2h`, `3d`), or `now`.

export type When = { kind: 'sync'; n: number } | { kind: 'time'; at: string } | { kind: 'now' };

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/i;

/** WHEN as given to --since or --until (`now`: the current time, to turn a duration into a moment). */
export function parseWhen(text: string, option: string, now: number = Date.now()): When {
  const value = text.trim();
  const sync = /^sync:(-?\d+)$/i.exec(value);
  if (sync) {
    const n = Number(sync[1]);
    // sync:0 is before the table's first sync (the table empty), as sync:-k one more than its syncs is
    return { kind: 'sync', n };
  }
  if (value.toLowerCase() === 'now') return { kind: 'now' };
  const ms = parseDuration(value, option);
  if (ms !== undefined) return { kind: 'time', at: new Date(now - ms).toISOString() };
  const iso = ISO.exec(value);
  if (iso && !isMoment(iso)) {
    throw new UsageError(`${option} ${JSON.stringify(text)} is not a date and time of the calendar`, {
      hint: 'the month goes from 01 to 12, the day up to the days of that month, the hour from 00 to 23, minutes and seconds from 00 to 59',
    });
  }
  if (iso && !Number.isNaN(Date.parse(value))) return { kind: 'time', at: new Date(Date.parse(value)).toISOString() };
  throw new UsageError(`${option} ${JSON.stringify(text)} is not a moment tds diff knows`, {
    hint: 'give sync:N (a sync ID, or sync:-1 for the last sync), an ISO 8601 date-time (2026-03-01T12:00:00Z) or a duration ago (90m, 2h, 3d)',
  });
}

/** Whether the parts of an ISO 8601 date-time name a real moment (Date.parse reads 2026-02-30 as March 2). */
function isMoment(parts: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = parts.slice(1).map((part) => Number(part ?? 0));
  return isCalendarDate(year!, month!, day!) && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 23 && offsetMinutes! <= 59;
}

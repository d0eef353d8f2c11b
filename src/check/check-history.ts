import type { DuckDBConnection } from '@duckdb/node-api';
import { openMirror, type OpenMirror } from '../mirror/index.js';
import type { CheckResult, CheckStatus } from './check-result.js';

// _tds_checks: every run's results, kept in the mirror so that `tds sql` can chart them, and so that
// a run knows what changed since the one before and which field a schema contract matched by its label
// (a relabelled field is told from a removed one by its field ID).
//
// _tds_notified: per check, the status a receiver of `--notify` last took (answered 2xx to). A run with
// --notify compares with it, so a change no receiver took (a kill, a 5xx, a redirect, no answer) is
// *undelivered* and goes with the next run's message. It is written with the run, before the POST (a
// changed check keeps the status told before), and moved on once a receiver answered 2xx.

const CREATE = `CREATE TABLE IF NOT EXISTS _tds_checks (
  run BIGINT NOT NULL,
  time TIMESTAMPTZ NOT NULL,
  "table" VARCHAR NOT NULL,
  "check" VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  observed DOUBLE,
  threshold VARCHAR,
  examples VARCHAR[],
  message VARCHAR,
  fields JSON
)`;

const CREATE_NOTIFIED = `CREATE TABLE IF NOT EXISTS _tds_notified (
  "table" VARCHAR NOT NULL,
  "check" VARCHAR NOT NULL,
  status VARCHAR,
  PRIMARY KEY ("table", "check")
)`;

/** What the last run said of a check. */
export interface PreviousResult {
  status: CheckStatus;
  /** A schema contract's declared labels and the field IDs they matched. */
  fields: Record<string, string> | null;
}

/** A check's status moved since the last run (a check new to the file counts when it does not pass). */
export interface StatusChange {
  table: string;
  check: string;
  from: CheckStatus | null;
  to: CheckStatus;
  observed: CheckResult['observed'];
  threshold: string;
}

export const resultKey = (table: string, check: string): string => JSON.stringify([table, check]);

/** The latest result of every check of the last runs, by resultKey; empty when no run was recorded. */
export async function previousResults(connection: DuckDBConnection): Promise<Map<string, PreviousResult>> {
  const exists = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_tables() WHERE table_name = '_tds_checks' AND schema_name = 'main' AND database_name = current_database()",
  );
  const latest = new Map<string, PreviousResult>();
  if (exists.currentRowCount === 0) return latest;
  const reader = await connection.runAndReadAll(
    `SELECT "table", "check", status, CAST(fields AS VARCHAR) AS fields FROM _tds_checks
     QUALIFY row_number() OVER (PARTITION BY "table", "check" ORDER BY run DESC) = 1`,
  );
  for (const row of reader.getRowObjectsJS()) {
    const fields = row.fields === null ? null : (JSON.parse(String(row.fields)) as Record<string, string>);
    latest.set(resultKey(String(row.table), String(row.check)), { status: String(row.status) as CheckStatus, fields });
  }
  return latest;
}

/**
 * Per check (resultKey), the status a receiver last took; null for a check told of no status yet (new,
 * and its first message undelivered). A check not in the map was never part of a run with --notify.
 */
export async function notifiedStatuses(connection: DuckDBConnection): Promise<Map<string, CheckStatus | null>> {
  const exists = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_tables() WHERE table_name = '_tds_notified' AND schema_name = 'main' AND database_name = current_database()",
  );
  const told = new Map<string, CheckStatus | null>();
  if (exists.currentRowCount === 0) return told;
  const reader = await connection.runAndReadAll('SELECT "table", "check", status FROM _tds_notified');
  for (const row of reader.getRowObjectsJS()) {
    told.set(resultKey(String(row.table), String(row.check)), row.status === null ? null : (String(row.status) as CheckStatus));
  }
  return told;
}

/**
 * What changed since the status each check had: `told` (with --notify: what a receiver took; a check
 * it lacks compares with the last run) over `previous` (the last run).
 */
export function statusChanges(
  results: readonly CheckResult[],
  previous: ReadonlyMap<string, PreviousResult>,
  told?: ReadonlyMap<string, CheckStatus | null>,
): StatusChange[] {
  return results.flatMap((result) => {
    const key = resultKey(result.table, result.check);
    const from = told?.has(key) ? told.get(key)! : (previous.get(key)?.status ?? null);
    if (from === result.status || (from === null && result.status === 'pass')) return [];
    return [{ table: result.table, check: result.check, from, to: result.status, observed: result.observed, threshold: result.threshold }];
  });
}

/** What a run with --notify leaves in _tds_notified: every check's status, but a changed one's is still the status told before. */
export function notifiedAfterRun(results: readonly CheckResult[], changes: readonly StatusChange[]): Map<string, CheckStatus | null> {
  const told = new Map<string, CheckStatus | null>(results.map((result) => [resultKey(result.table, result.check), result.status]));
  for (const change of changes) told.set(resultKey(change.table, change.check), change.from);
  return told;
}

/**
 * One run appended to _tds_checks (the mirror opened for writing only as long as that takes), with
 * `notified` (a run with --notify) in _tds_notified in the same transaction; returns its number.
 */
export async function recordRun(
  path: string,
  run: {
    results: readonly CheckResult[];
    matched: ReadonlyMap<string, Record<string, string>>;
    notified?: ReadonlyMap<string, CheckStatus | null>;
  },
  wait: Pick<OpenMirror, 'onWait' | 'signal'> = {},
): Promise<number> {
  const { results, matched, notified } = run;
  const db = await openMirror(path, { readOnly: false, memoryLimit: '64MB', ...wait });
  try {
    const { connection } = db;
    await connection.run(CREATE);
    await connection.run(CREATE_NOTIFIED);
    await connection.run('BEGIN TRANSACTION');
    try {
      const number = Number(
        (await connection.runAndReadAll('SELECT coalesce(max(run), 0) + 1 AS run FROM _tds_checks')).getRowObjectsJS()[0]!.run,
      );
      const time = new Date().toISOString();
      const insert = await connection.prepare(
        `INSERT INTO _tds_checks VALUES ($run, $time::TIMESTAMPTZ, $table, $check, $kind, $status, $observed, $threshold,
         from_json($examples, '["VARCHAR"]'), $message, $fields::JSON)`,
      );
      for (const result of results) {
        const fields = result.kind === 'schema' ? matched.get(result.table) : undefined;
        insert.bind({
          run: number,
          time,
          table: result.table,
          check: result.check,
          kind: result.kind,
          status: result.status,
          observed: typeof result.observed === 'number' ? result.observed : null,
          threshold: result.threshold,
          examples: JSON.stringify(result.examples),
          message: result.message,
          fields: fields ? JSON.stringify(fields) : null,
        });
        await insert.run();
      }
      insert.destroySync();
      if (notified) await writeNotified(connection, notified);
      await connection.run('COMMIT');
      return number;
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    db.close();
  }
}

async function writeNotified(connection: DuckDBConnection, notified: ReadonlyMap<string, CheckStatus | null>): Promise<void> {
  const upsert = await connection.prepare('INSERT OR REPLACE INTO _tds_notified VALUES ($table, $check, $status)');
  for (const [key, status] of notified) {
    const [table, check] = JSON.parse(key) as [string, string];
    upsert.bind({ table, check, status });
    await upsert.run();
  }
  upsert.destroySync();
}

/** The changes a receiver took (answered 2xx): their new statuses are what was told. */
export async function markNotified(
  path: string,
  changes: readonly StatusChange[],
  wait: Pick<OpenMirror, 'onWait' | 'signal'> = {},
): Promise<void> {
  if (changes.length === 0) return;
  const db = await openMirror(path, { readOnly: false, memoryLimit: '64MB', ...wait });
  try {
    await db.connection.run(CREATE_NOTIFIED);
    await writeNotified(db.connection, new Map(changes.map((change) => [resultKey(change.table, change.check), change.to])));
  } finally {
    db.close();
  }
}

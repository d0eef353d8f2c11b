import type { DuckDBConnection } from '@duckdb/node-api';
import { openMirror, type OpenMirror } from '../mirror/mirror-db.js';
import type { CheckResult, CheckStatus } from './check-result.js';

// _tds_checks: every run's results, kept in the mirror so that `tds sql` can chart them, and so that
// a run knows what changed since the one before (a notification) and which field a schema contract
// matched by its label (a relabelled field is told from a removed one by its field ID).

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

export function statusChanges(results: readonly CheckResult[], previous: ReadonlyMap<string, PreviousResult>): StatusChange[] {
  return results.flatMap((result) => {
    const from = previous.get(resultKey(result.table, result.check))?.status ?? null;
    if (from === result.status || (from === null && result.status === 'pass')) return [];
    return [{ table: result.table, check: result.check, from, to: result.status, observed: result.observed, threshold: result.threshold }];
  });
}

/** One run appended to _tds_checks (the mirror opened for writing only as long as that takes); returns its number. */
export async function recordRun(
  path: string,
  results: readonly CheckResult[],
  matched: ReadonlyMap<string, Record<string, string>>,
  wait: Pick<OpenMirror, 'onWait' | 'signal'> = {},
): Promise<number> {
  const db = await openMirror(path, { readOnly: false, memoryLimit: '64MB', ...wait });
  try {
    const { connection } = db;
    await connection.run(CREATE);
    await connection.run('BEGIN TRANSACTION');
    try {
      const run = Number(
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
          run,
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
      await connection.run('COMMIT');
      return run;
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    db.close();
  }
}

import { access } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TdsError } from '../core/index.js';
import { type Database, interruptible } from '../duckdb/index.js';
import { openMirror, requireMirror, type TableState } from '../mirror/index.js';
import { findMirrorTable, mirrorFields } from '../stats/index.js';
import { evaluateTable, type TableScope } from './check-figures.js';
import {
  notifiedAfterRun,
  notifiedStatuses,
  previousResults,
  recordRun,
  resultKey,
  statusChanges,
  type StatusChange,
} from './check-history.js';
import { thresholdOf, type CheckResult } from './check-result.js';
import type { TableChecks } from './checks-file.js';
import { evaluateContract } from './schema-contract.js';

// The src/check folder: `tds check` (docs/cli.md "Check"). This file runs a checks file over the mirror:
// runChecks() → every result, what changed since the last run, and the run kept in _tds_checks.
// checks-file.ts reads the YAML; check-figures.ts and schema-contract.ts evaluate; check-history.ts
// keeps the runs; check-output.ts prints them; notify.ts posts what changed.

export interface CheckRun {
  /** The mirror file. */
  db: string;
  tables: readonly TableChecks[];
  /** Now on the service's clock (ms). */
  now: number;
  /** Keep the run in _tds_checks (MCP's check_tables does not: it is read-only). */
  record: boolean;
  /**
   * --notify: the changes are those since the statuses a receiver took (_tds_notified), so that a change
   * never delivered is one again; kept with the run (needs `record`).
   */
  notify?: boolean;
  signal: AbortSignal;
  /** A long wait for a mirror another process writes, said (waitOn: who holds it). */
  onWait?: (line: string) => void;
}

/** When a checked table's last complete pass began (`_tds_tables.verified_at`, the service's clock). */
export interface TableVerified {
  /** The table as the checks file names it. */
  table: string;
  /** null: no complete pass recorded. */
  verifiedAt: string | null;
  /** The bound its follower recorded (`_tds_tables.max_stale`, ms); null: none. */
  maxStaleMs: number | null;
}

export interface CheckOutcome {
  results: CheckResult[];
  /** The checked tables the mirror holds. */
  verified: TableVerified[];
  changes: StatusChange[];
  /** The run's number in _tds_checks; null when not recorded. */
  run: number | null;
}

/**
 * DuckDB's buffer pool for a run: the GROUP BY of `unique` over a million different values stays in
 * it (DuckDB spills beside the mirror past it), as `tds stats` does.
 */
const MEMORY_LIMIT = '100MB';

export async function runChecks(request: CheckRun): Promise<CheckOutcome> {
  await access(request.db).catch(() => {
    throw new TdsError('NOT_FOUND', `there is no mirror ${request.db}`, {
      hint: `make it with \`tds sync TABLE --db ${request.db}\`, or leave out --no-sync and \`tds check\` syncs the tables first`,
    });
  });
  // read-only and without file access: the sandbox of `tds sql`, for the sql checks' queries
  const wait = { signal: request.signal, ...(request.onWait ? { onWait: request.onWait } : {}) };
  const db = await openMirror(request.db, { readOnly: true, memoryLimit: MEMORY_LIMIT, access: { files: false }, ...wait });
  let evaluated: Evaluated;
  try {
    await requireMirror(db);
    evaluated = await evaluateChecks(db, request);
  } finally {
    db.close();
  }
  const notified = request.notify ? notifiedAfterRun(evaluated.results, evaluated.changes) : undefined;
  const run = request.record
    ? await recordRun(request.db, { results: evaluated.results, matched: evaluated.matched, ...(notified ? { notified } : {}) }, wait)
    : null;
  return { results: evaluated.results, verified: evaluated.verified, changes: evaluated.changes, run };
}

interface Evaluated {
  results: CheckResult[];
  verified: TableVerified[];
  changes: StatusChange[];
  /** Per table, the field IDs its schema contract matched. */
  matched: Map<string, Record<string, string>>;
}

/**
 * Every check of `tables` on a mirror opened read-only without file access (the caller's: MCP's
 * check_tables reads through the server's one instance), and what changed since the last recorded run.
 */
export async function evaluateChecks(
  db: Database,
  request: Pick<CheckRun, 'db' | 'tables' | 'now' | 'signal' | 'notify'>,
): Promise<Evaluated> {
  const results: CheckResult[] = [];
  const tablesVerified: TableVerified[] = [];
  const matched = new Map<string, Record<string, string>>();
  const step = interruptible(db, request.signal);
  const previous = await previousResults(db.connection);
  const told = request.notify ? await notifiedStatuses(db.connection) : undefined;
  const verified = await verifiedTimes(db.connection);
  for (const table of request.tables) {
    let state: TableState;
    try {
      state = await findMirrorTable(db.connection, table.ref, request.db);
    } catch (error) {
      if (!(error instanceof TdsError) || error.code === 'INTERRUPTED') throw error;
      results.push(...unreachable(table, error.message));
      continue;
    }
    tablesVerified.push({ table: table.ref, verifiedAt: verified?.get(state.tableId) ?? null, maxStaleMs: state.maxStaleMs });
    const fields = await mirrorFields(db.connection, state.tableId);
    const scope: TableScope = {
      db,
      step,
      signal: request.signal,
      table: state,
      fields,
      now: request.now,
      verifiedAt: verified?.get(state.tableId),
    };
    if (table.schema) {
      const contract = evaluateContract(table.schema, fields, table.ref, previous.get(resultKey(table.ref, 'schema'))?.fields ?? null);
      results.push(contract.result);
      matched.set(table.ref, contract.matched);
    }
    const contractLabels = new Set(table.schema?.fields.map((field) => field.label) ?? []);
    results.push(...(await evaluateTable(scope, table.checks, { tableRef: table.ref, contractLabels })));
  }
  return { results, verified: tablesVerified, changes: statusChanges(results, previous, told), matched };
}

/** Every check of a table the mirror does not hold: an `error` that says so. */
function unreachable(table: TableChecks, message: string): CheckResult[] {
  const schema: CheckResult[] = table.schema
    ? [{ table: table.ref, check: 'schema', kind: 'schema', status: 'error', observed: null, threshold: '', examples: [], message }]
    : [];
  return [
    ...schema,
    ...table.checks.map((check) => ({
      table: table.ref,
      check: check.name,
      kind: check.spec.kind,
      status: 'error' as const,
      observed: null,
      threshold: thresholdOf(check.spec),
      examples: [],
      message,
    })),
  ];
}

/** `_tds_tables.verified_at` by table ID (the service's clock); undefined for a mirror without the column. */
async function verifiedTimes(connection: DuckDBConnection): Promise<Map<string, string | null> | undefined> {
  const column = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_columns() WHERE table_name = '_tds_tables' AND column_name = 'verified_at' AND database_name = current_database()",
  );
  if (column.currentRowCount === 0) return undefined;
  const reader = await connection.runAndReadAll('SELECT table_id, epoch_ms(verified_at) AS verified_at FROM _tds_tables');
  return new Map(
    reader
      .getRowObjectsJS()
      .map((row) => [String(row.table_id), row.verified_at === null ? null : new Date(Number(row.verified_at)).toISOString()]),
  );
}

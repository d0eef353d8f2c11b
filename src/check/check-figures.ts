import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { type Database, type Step, interruptible, prepareOne, quoteIdent, quoteLiteral, sqlError } from '../duckdb/index.js';
import type { StoredField, TableState } from '../mirror/index.js';
import { fieldSql } from '../stats/index.js';
import { ageText, judged, MAX_EXAMPLES, thresholdOf, type CheckResult } from './check-result.js';
import type { CheckSpec, DeclaredCheck } from './checks-file.js';

// Each kind of check as DuckDB computes it over the mirror table: one aggregate for the figure, and a
// LIMIT 3 for the example row IDs of a check that does not pass. No row is read into this process.

export interface TableScope {
  db: Database;
  step: Step;
  /** What stops the run (Ctrl-C): a sql check's own time limit is added to it. */
  signal: AbortSignal;
  table: TableState;
  /** The table's fields (removed ones are not). */
  fields: StoredField[];
  /** Now on the service's clock (ms): ages, spans and stuck cells are measured from it. */
  now: number;
  /** `_tds_tables.verified_at` of the table; undefined when the mirror has no such column yet. */
  verifiedAt: string | null | undefined;
}

/** A result without its table, status or examples yet. */
type Figure = Pick<CheckResult, 'observed' | 'threshold'> & {
  ok: boolean;
  /** A condition on the table's rows that holds for the rows at fault: the examples are read by it. */
  faults?: string;
  /** The examples, when the figure itself found them (a sql check's rows). */
  examples?: string[];
  message?: string;
};

/** Where a check could not be evaluated (a column the table does not have): an `error` result. */
export class CheckProblem extends Error {
  /** The column named that the table does not have. */
  readonly missingColumn?: string;

  constructor(message: string, missingColumn?: string) {
    super(message);
    if (missingColumn !== undefined) this.missingColumn = missingColumn;
  }
}

const RUNNING_STATES = ['queued', 'waiting', 'running'];

/** How a check's figure is had: aggregates of the table's one scan and a judgement of their values, or a query of its own. */
type Plan = { exprs: string[]; judge(values: number[]): Figure } | { run(): Promise<Figure> };

export interface TableChecksContext {
  tableRef: string;
  /** The labels the table's schema contract declares. */
  contractLabels: ReadonlySet<string>;
}

/**
 * The results of a table's checks: the aggregates of every check computed in one scan of the table
 * (the same expression once), the sql checks and example rows by queries of their own. A column the
 * table does not have is an `error` naming the columns there are, or a `fail` when the schema
 * contract declares it: the contract's drift is then the cause.
 */
export async function evaluateTable(
  scope: TableScope,
  checks: readonly DeclaredCheck[],
  context: TableChecksContext,
): Promise<CheckResult[]> {
  const plans = checks.map((declared) => {
    try {
      return planOf(scope, declared.spec);
    } catch (error) {
      if (!(error instanceof CheckProblem)) throw error;
      return error;
    }
  });
  const valueOf = await aggregates(scope, plans);
  const examplesOf = new Map<string, Promise<string[]>>();
  const results: CheckResult[] = [];
  for (const [i, declared] of checks.entries()) {
    const plan = plans[i]!;
    const base = { table: context.tableRef, check: declared.name, kind: declared.spec.kind, threshold: thresholdOf(declared.spec) };
    let figure: Figure;
    try {
      if (plan instanceof CheckProblem) throw plan;
      figure = 'exprs' in plan ? plan.judge(plan.exprs.map(valueOf)) : await plan.run();
    } catch (error) {
      if ((!(error instanceof CheckProblem) && declared.spec.kind !== 'sql') || scope.signal.aborted) throw error;
      const message = error instanceof CheckProblem ? error.message : (sqlError(error) as Error).message;
      const gone = error instanceof CheckProblem && error.missingColumn !== undefined && context.contractLabels.has(error.missingColumn);
      results.push({ ...base, status: gone ? 'fail' : 'error', observed: null, examples: [], message });
      continue;
    }
    const faults = figure.faults;
    if (!figure.ok && !figure.examples && faults && !examplesOf.has(faults)) examplesOf.set(faults, exampleIds(scope, faults));
    const examples = figure.ok ? [] : (figure.examples ?? (faults ? await examplesOf.get(faults)! : []));
    const status = judged(figure.ok, declared.severity);
    // a figure may say its threshold more precisely than the spec (stale: the recorded bound)
    results.push({ ...base, threshold: figure.threshold, status, observed: figure.observed, examples, message: figure.message ?? null });
  }
  return results;
}

/** The values of the plans' aggregates, all of them in one scan of the table (each expression once). */
async function aggregates(scope: TableScope, plans: ReadonlyArray<Plan | CheckProblem>): Promise<(expr: string) => number> {
  const exprs = [...new Set(plans.flatMap((plan) => (plan instanceof CheckProblem || !('exprs' in plan) ? [] : plan.exprs)))];
  if (exprs.length === 0) return () => Number.NaN;
  const row = await first(
    scope,
    `SELECT ${exprs.map((expr, i) => `${expr} AS a${i}`).join(', ')} FROM ${quoteIdent(scope.table.mirrorTable)}`,
  );
  return (expr) => {
    const value = row[`a${exprs.indexOf(expr)}`];
    return value === null || value === undefined ? Number.NaN : Number(value);
  };
}

function planOf(scope: TableScope, spec: CheckSpec): Plan {
  const threshold = thresholdOf(spec);
  switch (spec.kind) {
    case 'rows':
      return { exprs: ['count(*)'], judge: ([rows]) => ({ observed: rows!, threshold, ok: within(rows!, spec.min, spec.max) }) };
    case 'fill': {
      const { filled } = fieldSql(columnOf(scope, spec.column));
      const faults = `NOT coalesce(${filled}, false)`;
      return {
        exprs: ['count(*)', `count(*) FILTER (WHERE ${filled})`],
        judge: ([total, count]) => {
          const fill = total === 0 ? null : count! / total!;
          return { observed: fill, threshold, ok: fill === null || within(fill, spec.min, spec.max), faults };
        },
      };
    }
    case 'unique':
      return { run: () => uniqueFigure(scope, spec.column, threshold) };
    case 'accepted': {
      const sql = fieldSql(columnOf(scope, spec.column));
      const list = `[${spec.values.map(quoteLiteral).join(', ')}]`;
      const outside =
        sql.sqlType === 'VARCHAR[]'
          ? `len(list_filter(${sql.column}, x -> NOT list_contains(${list}, x))) > 0`
          : `${sql.filled} AND NOT list_contains(${list}, CAST(${sql.column} AS VARCHAR))`;
      return {
        exprs: [`count(*) FILTER (WHERE ${outside})`],
        judge: ([rows]) => ({ observed: rows!, threshold, ok: rows === 0, faults: outside }),
      };
    }
    case 'failure_rate':
    case 'stuck':
      return runStatePlan(scope, spec, threshold);
    case 'activity':
      return {
        exprs: ['epoch_ms(max(_createdAt))'],
        judge: ([newest]) => {
          if (Number.isNaN(newest)) return { observed: null, threshold, ok: false, message: 'the table has no rows' };
          const age = Math.max(0, scope.now - newest!);
          return { observed: Math.round(age / 1000), threshold, ok: age <= spec.maxQuiet.ms };
        },
      };
    case 'fresh':
      return { run: () => Promise.resolve(freshFigure(scope, spec, threshold)) };
    case 'stale':
      return { run: () => Promise.resolve(staleFigure(scope)) };
    case 'sql':
      return { run: () => sqlFigure(scope, spec, threshold) };
  }
}

/** A unique check's figure per column (two checks of one column make one GROUP BY). */
const uniqueFigures = new WeakMap<TableScope, Map<string, Promise<Figure>>>();

/**
 * The rows that repeat a value an earlier row has (a value on three rows: two), from one GROUP BY of
 * the column, which also names one repeated value: its rows are the examples.
 */
function uniqueFigure(scope: TableScope, name: string, threshold: string): Promise<Figure> {
  const { filled, column, field } = fieldSql(columnOf(scope, name));
  const memo = uniqueFigures.get(scope) ?? new Map<string, Promise<Figure>>();
  uniqueFigures.set(scope, memo);
  const known = memo.get(field.fieldId);
  if (known) return known.then((figure) => ({ ...figure, threshold }));
  const value = `CAST(${column} AS VARCHAR)`;
  const from = quoteIdent(scope.table.mirrorTable);
  const figure = first(
    scope,
    `SELECT coalesce(sum(n - 1), 0) AS repeats, min(v) FILTER (WHERE n > 1) AS repeated FROM (SELECT ${value} AS v, count(*) AS n FROM ${from} WHERE ${filled} GROUP BY 1)`,
  ).then((row): Figure => {
    const repeats = Number(row.repeats);
    const repeated = row.repeated === null || row.repeated === undefined ? undefined : String(row.repeated);
    return {
      observed: repeats,
      threshold,
      ok: repeats === 0,
      ...(repeated === undefined ? {} : { faults: `${value} = ${quoteLiteral(repeated)}` }),
    };
  });
  memo.set(field.fieldId, figure);
  return figure;
}

/** The age of the table's last complete pass (verified_at), on the service's clock. */
function freshFigure(scope: TableScope, spec: Extract<CheckSpec, { kind: 'fresh' }>, threshold: string): Figure {
  if (!scope.verifiedAt) throw new CheckProblem('not verified yet: no complete pass over the table is recorded');
  const age = Math.max(0, scope.now - Date.parse(scope.verifiedAt));
  return { observed: Math.round(age / 1000), threshold, ok: age <= spec.maxAge.ms };
}

/** The age of the table's last complete pass against the bound its follower recorded (max_stale), on the service's clock. */
function staleFigure(scope: TableScope): Figure {
  if (!scope.verifiedAt) throw new CheckProblem('not verified yet: no complete pass over the table is recorded');
  const bound = scope.table.maxStaleMs;
  if (bound === null) {
    throw new CheckProblem('no bound recorded: `tds sync --follow` records its --max-stale; else check the age with fresh: {max_age: …}');
  }
  const age = Math.max(0, scope.now - Date.parse(scope.verifiedAt));
  return { observed: Math.round(age / 1000), threshold: `≤ ${ageText(bound / 1000)} (max_stale)`, ok: age <= bound };
}

/** Over the cells' run states (`<key>.status`): the share failed of those that finished, or the cells stuck running. */
function runStatePlan(scope: TableScope, spec: Extract<CheckSpec, { kind: 'failure_rate' | 'stuck' }>, threshold: string): Plan {
  const status = statusColumn(scope, spec.column);
  if (spec.kind === 'stuck') {
    const stuck = `${status} IN (${RUNNING_STATES.map(quoteLiteral).join(', ')}) AND _updatedAt < ${instant(scope.now - spec.maxAge.ms)}`;
    return {
      exprs: [`count(*) FILTER (WHERE ${stuck})`],
      judge: ([cells]) => ({ observed: cells!, threshold, ok: cells === 0, faults: stuck }),
    };
  }
  const since = spec.since ? `_updatedAt >= ${instant(scope.now - spec.since.ms)}` : 'true';
  const failed = `${status} = 'failed' AND ${since}`;
  return {
    exprs: [`count(*) FILTER (WHERE ${failed})`, `count(*) FILTER (WHERE ${status} IN ('success', 'failed') AND ${since})`],
    judge: ([failures, finished]) => {
      const rate = finished === 0 ? null : failures! / finished!;
      return { observed: rate, threshold, ok: rate === null || rate <= spec.max, faults: failed };
    },
  };
}

/**
 * The `sql` check: its query in the sandbox of `tds sql` (read-only, no file access); its rows are the
 * faults. It is one query that can stand as a subquery (a PRAGMA, CALL or EXPLAIN cannot), and it runs
 * within its `timeout`: past it, an `error`.
 */
async function sqlFigure(scope: TableScope, spec: Extract<CheckSpec, { kind: 'sql' }>, threshold: string): Promise<Figure> {
  const limit = AbortSignal.timeout(spec.timeout.ms);
  const step = interruptible(scope.db, AbortSignal.any([scope.signal, limit]));
  try {
    return await sqlRows(scope, spec, threshold, step);
  } catch (error) {
    if (limit.aborted && !scope.signal.aborted) {
      throw new CheckProblem(`the query ran past its time limit (timeout: ${spec.timeout.text}) and was stopped`);
    }
    throw error;
  }
}

const NOT_A_QUERY = 'a sql check is one SELECT (or WITH …) query whose rows are the faults; this statement is not one';

async function sqlRows(scope: TableScope, spec: Extract<CheckSpec, { kind: 'sql' }>, threshold: string, step: Step): Promise<Figure> {
  const statement = await prepareOne(scope.db, spec.query, { files: false }, step);
  const type = statement.statementType;
  const columns = Array.from({ length: statement.columnCount }, (_, i) => statement.columnName(i));
  statement.destroySync();
  if (type !== scope.db.duckdb.StatementType.SELECT) throw new CheckProblem(NOT_A_QUERY);
  // the checked query as a subquery, on a line of its own (a comment at its end swallows nothing of ours)
  const query = `(\n${spec.query.trim().replace(/;+\s*$/, '')}\n) AS q`;
  const count = `SELECT count(*) AS n FROM ${query}`;
  // a PRAGMA prepares as a SELECT and cannot stand as a subquery: say so, not DuckDB's parser error about ")"
  const counting = await step(() => scope.db.connection.prepare(count)).catch(() => {
    throw new CheckProblem(`${NOT_A_QUERY} (PRAGMA, CALL, EXPLAIN and the like cannot be)`);
  });
  counting.destroySync();
  const rows = Number((await first({ ...scope, step }, count)).n);
  const idColumn = columns.includes('_id') ? '_id' : columns[0];
  let examples: string[] = [];
  if (rows > spec.max && idColumn !== undefined) {
    const id = quoteIdent(idColumn);
    const reader = await step(() =>
      scope.db.connection.runAndReadAll(`SELECT CAST(${id} AS VARCHAR) AS id FROM ${query} WHERE ${id} IS NOT NULL LIMIT ${MAX_EXAMPLES}`),
    );
    examples = reader.getRowObjectsJS().map((row) => String(row.id));
  }
  return { observed: rows, threshold, ok: rows <= spec.max, examples };
}

function within(value: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || value >= min) && (max === undefined || value <= max);
}

/** A column of the table by key, field ID, label or name; one it does not have is a CheckProblem naming those it has. */
export function columnOf(scope: TableScope, name: string): StoredField {
  const { fields } = scope;
  const found =
    fields.find((field) => field.key === name) ??
    fields.find((field) => field.fieldId === name) ??
    fields.find((field) => field.label === name) ??
    fields.find((field) => field.name === name);
  if (found) return found;
  const keys = fields.map((field) => field.key);
  throw new CheckProblem(`the table has no column "${name}"; its columns: ${keys.join(', ') || '(none)'}`, name);
}

/** The run-state column (`<key>.status`) of an action column. */
function statusColumn(scope: TableScope, name: string): string {
  const field = columnOf(scope, name);
  if (!field.statusKey) throw new CheckProblem(`"${name}" is a ${field.type} column: its cells have no run state (an action column has)`);
  return quoteIdent(field.statusKey);
}

function instant(ms: number): string {
  return `${quoteLiteral(new Date(ms).toISOString())}::TIMESTAMPTZ`;
}

async function first(scope: TableScope, sql: string, params: DuckDBValue[] = []): Promise<Record<string, unknown>> {
  const connection: DuckDBConnection = scope.db.connection;
  const reader = await scope.step(() => connection.runAndReadAll(sql, params));
  return reader.getRowObjectsJS()[0] ?? {};
}

async function exampleIds(scope: TableScope, faults: string): Promise<string[]> {
  const from = quoteIdent(scope.table.mirrorTable);
  const reader = await scope.step(() => scope.db.connection.runAndReadAll(`SELECT _id FROM ${from} WHERE ${faults} LIMIT ${MAX_EXAMPLES}`));
  return reader.getRowObjectsJS().map((row) => String(row._id));
}

import { resolve } from 'node:path';
import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { type Context, UsageError } from '../core/index.js';
import {
  sqlError,
  type Database,
  type FileAccess,
  interruptible,
  type Step,
  prepareOne,
  runStatement,
  type ResultRecord,
} from '../duckdb/index.js';
import { createAtomicFile, type Format } from '../output/index.js';
import { createRecordWriter } from '../output/page-encoder.js';
import { copyOut, partialPath } from '../parquet/index.js';
import { openMirror, waitOn } from './mirror-db.js';

export interface SqlRequest {
  sql: string;
  db: string;
  format: Format | 'parquet';
  /** -o FILE; stdout when undefined */
  output?: string;
  write: boolean;
  /** --files: the statement gets the user's own file access; otherwise none (see duckdb/file-access.ts). */
  files: boolean;
}

/** A terminal table holds at most this many rows (the rest is said in a footer): --format csv streams any number. */
const TABLE_MAX_ROWS = 1000;

/** The statement, prepared on the mirror, and the step that runs DuckDB's calls so that Ctrl-C interrupts them. */
interface PreparedSql {
  db: Database;
  statement: DuckDBPreparedStatement;
  step: Step;
}

/**
 * `tds sql`: one statement (DuckDB's dialect) against the mirror, opened read-only unless --write and
 * without file access unless --files; a query's rows printed like an export, or written as Parquet by
 * DuckDB itself (COPY … TO, the one path tds allows it). Ctrl-C interrupts DuckDB (exit 130).
 */
export async function runSql(ctx: Context, request: SqlRequest): Promise<void> {
  const parquet = request.format === 'parquet' ? parquetTarget(request) : undefined;
  const access: FileAccess = { files: request.files, ...(parquet ? { writablePaths: [partialPath(parquet)] } : {}) };
  // only a sync upgrades a mirror of an earlier format; until then its tables are read as they are
  const db = await openMirror(request.db, {
    readOnly: !request.write,
    access,
    keepFormat: true,
    ...waitOn(ctx),
    note: (line) => ctx.io.stderr.write(`tds: note: ${line}\n`),
  });
  try {
    ctx.verbose(
      `sql: ${request.db} open ${request.write ? 'for writing' : 'read-only'}, ${request.files ? 'with' : 'without'} file access; running the statement`,
    );
    const step = interruptible(db, ctx.signal);
    const statement = await sqlStep(request.output, () => prepareOne(db, request.sql, access, step));
    const prepared = { db, statement, step };
    if (parquet) return await copyToParquet(prepared, request.sql, parquet);
    await printResult(ctx, prepared, { ...request, format: request.format as Format });
  } finally {
    db.close();
  }
}

function parquetTarget(request: SqlRequest): string {
  if (!request.output)
    throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal', {
      hint: 'e.g. tds sql "SELECT * FROM leads" -o leads.parquet',
    });
  return resolve(request.output);
}

/** DuckDB's errors as the user's (exit 2, see sqlError); `output` is -o FILE, for the hint of a folder that is not there. */
async function sqlStep<T>(output: string | undefined, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw sqlError(error, output ? { output } : {});
  }
}

async function printResult(ctx: Context, { db, statement, step }: PreparedSql, request: SqlRequest & { format: Format }): Promise<void> {
  const outcome = await sqlStep(request.output, () => runStatement(db, statement, step));
  if (outcome.kind !== 'rows') {
    ctx.io.stderr.write(outcome.kind === 'changed' ? `${outcome.count.toLocaleString('en-US')} rows changed\n` : 'ok\n');
    return;
  }
  const { columns } = outcome;
  const records = (async function* (): AsyncGenerator<ResultRecord> {
    const rows = outcome.rows[Symbol.asyncIterator]();
    for (;;) {
      const next = await sqlStep(request.output, () => rows.next());
      if (next.done) return;
      yield next.value;
    }
  })();
  const file = request.output ? await createAtomicFile(request.output) : undefined;
  const sink = file?.stream ?? ctx.io.stdout;
  try {
    if (request.format === 'table') await writeTable(ctx, sink, { names: columns, records, toFile: Boolean(file) });
    else {
      const writer = createRecordWriter(sink, { format: request.format as Exclude<Format, 'table'>, columns });
      for await (const record of records) await writer.write(record);
      await writer.end();
    }
    await file?.commit();
  } catch (error) {
    // interrupted: what was written stays as FILE.partial (never as FILE); any other failure leaves nothing
    if (ctx.signal.aborted) await file?.abandon().catch(() => undefined);
    else await file?.discard();
    throw error;
  }
}

/**
 * The records as a terminal table, as `tds rows` shows them (numbers right-aligned, lists joined,
 * members by name, the columns that do not fit left out and named), through the pager when long
 * (`toFile`: -o FILE, never sized to the terminal nor coloured nor paged).
 */
async function writeTable(
  ctx: Context,
  sink: NodeJS.WritableStream,
  { names, records, toFile }: { names: string[]; records: AsyncIterable<ResultRecord>; toFile: boolean },
): Promise<void> {
  // the terminal table (cli-table3, emoji widths) is loaded only by a result shown as one
  const [{ writePaged, tableFit }, { renderRecordTable, firstRows }] = await Promise.all([
    import('../output/table.js'),
    import('../output/record-table.js'),
  ]);
  const { rows, more } = await firstRows(records, TABLE_MAX_ROWS);
  const numeric = (key: string): boolean =>
    rows.some((row) => row[key] !== null) && rows.every((row) => row[key] === null || ['number', 'bigint'].includes(typeof row[key]));
  const columns = names.map((key) => ({ key, ...(numeric(key) ? { align: 'right' as const } : {}) }));
  const { text, hidden } = renderRecordTable(rows, columns, tableFit(ctx.io, toFile));
  if (toFile) sink.write(`${text}\n`);
  else await writePaged(ctx, `${text}\n`);
  const count = rows.length + more;
  ctx.io.stderr.write(
    `${count.toLocaleString('en-US')} ${count === 1 ? 'row' : 'rows'}${more > 0 ? ` (${more.toLocaleString('en-US')} not shown: use --format csv, or LIMIT)` : ''}\n`,
  );
  if (hidden.length > 0)
    ctx.io.stderr.write(
      `hint: ${hidden.length} ${hidden.length === 1 ? 'column does' : 'columns do'} not fit the terminal (${hidden
        .slice(0, 3)
        .map((key) => JSON.stringify(key))
        .join(', ')}${hidden.length > 3 ? ', …' : ''}): name the columns in SELECT, or use --format csv\n`,
    );
}

/**
 * The query's rows as Parquet to `target`, by DuckDB's COPY (copyOut): tds's own statement
 * around the user's query, the only write the sandbox allows.
 */
async function copyToParquet({ db, statement, step }: PreparedSql, sql: string, target: string): Promise<void> {
  const { StatementType } = db.duckdb;
  const type = statement.statementType;
  statement.destroySync();
  if (type !== StatementType.SELECT) throw new UsageError('--format parquet writes the rows of a query (SELECT …)');
  // on a line of its own, so that a comment at the end of the query does not swallow the rest
  const query = `${sql.trim().replace(/;+\s*$/, '')}\n`;
  await copyOut({ run: (copy) => sqlStep(target, () => step(() => db.connection.run(copy))), query, path: target });
}

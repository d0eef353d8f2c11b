import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { copyToParquetFile } from '../duckdb/copy-parquet.js';
import type { Database } from '../duckdb/engine.js';
import { plainValue } from '../duckdb/result-values.js';
import { createAtomicFile } from '../output/atomic-file.js';
import type { Format } from '../output/format.js';
import { createRecordWriter } from '../output/record-writer.js';
import { renderTable } from '../output/table.js';
import type { OutputRecord } from '../records/output-record.js';
import { openMirror } from './mirror-db.js';

export interface SqlRequest {
  sql: string;
  db: string;
  format: Format | 'parquet';
  /** -o FILE; stdout when undefined */
  output?: string;
  write: boolean;
}

/** A terminal table holds at most this many rows (the rest is said in a footer): --format csv streams any number. */
const TABLE_MAX_ROWS = 1000;

/**
 * `tds sql`: one statement (DuckDB's dialect) against the mirror, opened read-only unless --write;
 * a query's rows printed like an export, or written as Parquet by DuckDB itself (COPY … TO).
 */
export async function runSql(ctx: Context, request: SqlRequest): Promise<void> {
  // only a sync upgrades a mirror of an earlier format; until then its tables are read as they are
  const db = await openMirror(request.db, {
    readOnly: !request.write,
    keepFormat: true,
    note: (line) => ctx.io.stderr.write(`tds: note: ${line}\n`),
  });
  try {
    const statement = await oneStatement(db, request.sql);
    const { format } = request;
    if (format === 'parquet') return await copyToParquet(db, statement, request);
    await printResult(ctx, db, statement, { ...request, format });
  } finally {
    db.close();
  }
}

async function oneStatement(db: Database, sql: string): Promise<DuckDBPreparedStatement> {
  const extracted = await sqlStep(() => db.connection.extractStatements(sql));
  if (extracted.count === 0) throw new UsageError('no SQL statement given');
  if (extracted.count > 1)
    throw new UsageError(`tds sql runs one statement; this text holds ${extracted.count}`, { hint: 'run them one at a time' });
  return sqlStep(() => extracted.prepare(0));
}

/** DuckDB's errors (syntax, unknown table, a write on a read-only mirror) are the user's SQL: exit 2 with DuckDB's message. */
async function sqlStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    throw new UsageError(`SQL: ${message.split('\n')[0]}`, {
      ...(/read-only mode/i.test(message) ? { hint: 'the mirror is opened read-only: add --write to change it' } : {}),
      ...(/IO Error: Cannot open file/i.test(message) ? { hint: 'check that the folder of -o FILE exists and can be written' } : {}),
      ...(/Table with name .* does not exist/i.test(message)
        ? { hint: 'SHOW TABLES lists the mirror tables; _tds_tables says which is which' }
        : {}),
    });
  }
}

async function printResult(
  ctx: Context,
  db: Database,
  statement: DuckDBPreparedStatement,
  request: SqlRequest & { format: Format },
): Promise<void> {
  const result = await sqlStep(() => statement.stream());
  const { ResultReturnType } = db.duckdb;
  if (result.returnType !== ResultReturnType.QUERY_RESULT) {
    ctx.io.stderr.write(
      result.returnType === ResultReturnType.CHANGED_ROWS ? `${result.rowsChanged.toLocaleString('en-US')} rows changed\n` : 'ok\n',
    );
    return;
  }
  const names = result.deduplicatedColumnNames();
  const types = result.columnTypes();
  const records = (async function* (): AsyncGenerator<OutputRecord> {
    for await (const rows of result.yieldRowsJs()) {
      for (const row of rows) yield Object.fromEntries(names.map((name, i) => [name, plainValue(row[i], types[i]!)]));
    }
  })();
  const file = request.output ? await createAtomicFile(request.output) : undefined;
  const sink = file?.stream ?? ctx.io.stdout;
  try {
    if (request.format === 'table') await writeTable(ctx, sink, names, records, Boolean(file));
    else {
      const writer = createRecordWriter(sink, { format: request.format as Exclude<Format, 'table'>, columns: names });
      for await (const record of records) await writer.write(record);
      await writer.end();
    }
    await file?.commit();
  } catch (error) {
    await file?.discard();
    throw error;
  }
}

async function writeTable(
  ctx: Context,
  sink: NodeJS.WritableStream,
  names: string[],
  records: AsyncIterable<OutputRecord>,
  toFile: boolean,
): Promise<void> {
  const rows: OutputRecord[] = [];
  let more = 0;
  for await (const record of records) {
    if (rows.length < TABLE_MAX_ROWS) rows.push(record);
    else more += 1;
  }
  const text = (value: unknown): string | null => (value === null ? null : typeof value === 'string' ? value : JSON.stringify(value));
  const columns = names.map((name) => ({ header: name, value: (row: OutputRecord) => text(row[name]), shrink: true }));
  const sized = !toFile && (ctx.io.stdoutIsTTY || Boolean(ctx.io.env.COLUMNS));
  const color = !toFile && ctx.io.colorEnabled && ctx.io.stdoutIsTTY ? ctx.io.color : undefined;
  sink.write(`${renderTable(rows, columns, { width: sized ? ctx.io.terminalWidth : Infinity, ...(color ? { color } : {}) })}\n`);
  const count = rows.length + more;
  ctx.io.stderr.write(
    `${count.toLocaleString('en-US')} ${count === 1 ? 'row' : 'rows'}${more > 0 ? ` (${more.toLocaleString('en-US')} not shown: use --format csv, or LIMIT)` : ''}\n`,
  );
}

/** The query's rows as Parquet to -o FILE, by DuckDB's COPY (see copyToParquetFile). */
async function copyToParquet(db: Database, statement: DuckDBPreparedStatement, request: SqlRequest): Promise<void> {
  const { StatementType } = db.duckdb;
  if (statement.statementType !== StatementType.SELECT) throw new UsageError('--format parquet writes the rows of a query (SELECT …)');
  if (!request.output)
    throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal', {
      hint: 'e.g. tds sql "SELECT * FROM leads" -o leads.parquet',
    });
  const query = request.sql.trim().replace(/;+\s*$/, '');
  await copyToParquetFile((sql) => sqlStep(() => db.connection.run(sql)), query, request.output);
}

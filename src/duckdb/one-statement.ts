import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import type { Database } from './engine.js';
import { duckdbFailure } from './errors.js';
import { fileStatement, type FileAccess } from './file-access.js';
import type { Step } from './interruptible.js';

/** Why a statement that would reach files is refused without file access, and how to have it. */
export const FILES_HINT = 'add --files to give the statement your own file access (-o FILE writes a result without it)';

/**
 * The one statement `sql` holds, prepared: none or several are usage errors, and without file access a
 * statement whose job is files is refused before it runs (see file-access.ts). Syntax and binding
 * errors are DuckDB's, thrown as they are.
 */
export async function prepareOne(db: Database, sql: string, access: FileAccess, step: Step): Promise<DuckDBPreparedStatement> {
  const extracted = await step(() => db.connection.extractStatements(sql)).catch((error: unknown) => {
    throw duckdbFailure(error) === 'no-statement' ? noStatement() : error;
  });
  if (extracted.count === 0) throw noStatement();
  if (extracted.count > 1)
    throw new UsageError(`tds sql runs one statement; this text holds ${extracted.count}`, { hint: 'run them one at a time' });
  const statement = await step(() => extracted.prepare(0));
  const job = access.files ? undefined : fileStatement(db.duckdb.StatementType, statement.statementType);
  if (job) {
    statement.destroySync();
    throw new UsageError(`SQL: ${job}, and a statement has no file access without --files`, { hint: FILES_HINT });
  }
  return statement;
}

function noStatement(): UsageError {
  return new UsageError('no SQL statement given', { hint: 'e.g. tds sql "SELECT * FROM leads LIMIT 5"' });
}

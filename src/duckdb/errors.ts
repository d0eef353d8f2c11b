// DuckDB's errors carry no codes, only messages. What each message means to tds is decided here and
// nowhere else, by its text in the pinned DuckDB version: test/duckdb/errors.test.ts provokes every one
// of them, so an upgrade that rewords a message fails a test there, not a user.

import { TdsError, UsageError, closest, didYouMean } from '../core/index.js';

export type DuckDBFailure =
  /** `INTERRUPT Error: Interrupted!`: the statement was stopped by connection.interrupt(). */
  | 'interrupted'
  /** Text without a statement (`;`, a comment): @duckdb/node-api's extractStatements fails without a message of DuckDB's. */
  | 'no-statement'
  /** A file, folder or extension refused because external access is off (`Permission Error: …`). */
  | 'file-access-off'
  /** `SET` of a setting after lock_configuration. */
  | 'settings-locked'
  /** A change on a database opened read-only. */
  | 'read-only'
  | 'no-such-table'
  /** `IO Error: Cannot open file "…": <reason>` (a folder that is not there, a refusal by the system). */
  | 'cannot-open-file'
  /** Another process holds the database file's lock. */
  | 'locked'
  | 'not-a-database'
  /** A read-only open of a file that does not exist. */
  | 'no-database'
  /** A database file of a DuckDB storage version this one cannot read. */
  | 'other-version'
  /** A row refused by a table's primary key: its key is in the table, or twice in what was written. */
  | 'duplicate-key'
  | 'other';

const FAILURES: Array<[DuckDBFailure, RegExp]> = [
  ['interrupted', /^INTERRUPT Error: Interrupted/],
  ['no-statement', /^Error in native callback$/],
  ['file-access-off', /disabled by configuration|Loading external extensions is disabled/],
  ['settings-locked', /the configuration has been locked/],
  ['read-only', /attached in read-only mode/],
  ['no-such-table', /^Catalog Error: Table with name .* does not exist/],
  ['locked', /Could not set lock on file/],
  ['not-a-database', /is not a valid DuckDB database file/],
  ['no-database', /in read-only mode: database does not exist/],
  ['other-version', /Trying to read a database file with version number/],
  ['cannot-open-file', /^IO Error: Cannot open file/],
  ['duplicate-key', /Duplicate key .* violates primary key constraint|PRIMARY KEY or UNIQUE constraint violation: duplicate key/],
];

/** What a DuckDB error means; `other` for anything not listed (a syntax error, a conversion, …). */
export function duckdbFailure(error: unknown): DuckDBFailure {
  const message = messageOf(error);
  return FAILURES.find(([, pattern]) => pattern.test(message))?.[0] ?? 'other';
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of DuckDB's message (the rest is advice for DuckDB's own shell, or a list of versions). */
export function firstLine(error: unknown): string {
  return messageOf(error).split('\n')[0]!.trim();
}

/** The first line without DuckDB's `IO Error: ` class (`IO Error: Cannot open file …` → `Cannot open file …`). */
export function firstLineReason(error: unknown): string {
  return firstLine(error).replace(/^IO Error: /, '');
}

/** The process that holds a database's lock, as DuckDB names it. */
export function lockHolder(error: unknown): string | undefined {
  return /\(PID (\d+)\)/.exec(messageOf(error))?.[1];
}

export type SystemRefusal = 'ENOSPC' | 'EFBIG' | 'EDQUOT' | 'EROFS' | 'EACCES';

/** DuckDB reports the system's refusals of a write in the system's words (strerror): the errno code Node would give. */
const REFUSALS: Array<[SystemRefusal, RegExp]> = [
  ['ENOSPC', /No space left on device/i],
  ['EFBIG', /File too large/i],
  ['EDQUOT', /Disk quota exceeded/i],
  ['EROFS', /Read-only file system/i],
  ['EACCES', /Permission denied/i],
];

/** The system's refusal behind a DuckDB I/O error, if it is one. */
export function systemRefusal(error: unknown): SystemRefusal | undefined {
  const message = messageOf(error);
  return REFUSALS.find(([, pattern]) => pattern.test(message))?.[0];
}

/**
 * What to do about a name DuckDB could not find in a statement, from the rest of its message: an
 * unquoted name with spaces (`Last Contacted` → DuckDB looks for `Last`) → quote it; a misspelt column
 * (from DuckDB's candidate bindings) or table (DuckDB's own "Did you mean") → did you mean.
 */
export function nameHint(error: unknown): string | undefined {
  const message = messageOf(error);
  const column = /^Binder Error: Referenced column "([^"]+)" not found/.exec(message)?.[1];
  if (column !== undefined) {
    const candidates = [...(/\nCandidate bindings: (.*)/.exec(message)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) =>
      m[1]!.replace(/^.*\./, ''),
    );
    const spaced = candidates.find((name) => name.toLowerCase().startsWith(`${column.toLowerCase()} `));
    if (spaced) return quoteHint(spaced);
    return didYouMean(column, candidates);
  }
  // DuckDB suggests its catalog's own tables too (pg_enum for nope): only a near name is said
  const [, table, near] = /^Catalog Error: Table with name (.*) does not exist!\nDid you mean "([^"]+)"/.exec(message) ?? [];
  if (table !== undefined && near !== undefined && closest(table, [near]).length > 0) return `did you mean ${near}?`;
  // the caret line under "LINE n: <statement>" points at the word DuckDB stopped at
  const syntax = /\bParser Error: syntax error at or near "([^"]+)"\n\n(LINE \d+: .*)\n( *)\^/.exec(message);
  if (!syntax) return undefined;
  const [, word, line, pad] = syntax;
  const previous = /([\p{L}_][\p{L}\p{N}_]*)\s+$/u.exec(line!.slice(0, pad!.length))?.[1];
  if (!previous || SQL_WORDS.has(previous.toUpperCase()) || !/^[\p{L}_][\p{L}\p{N}_]*$/u.test(word!)) return undefined;
  return quoteHint(`${previous} ${word}`);
}

/** Hints said one after the other; undefined when there is none. */
export const joinHints = (...hints: Array<string | undefined>): string | undefined => hints.filter(Boolean).join('; ') || undefined;

const quoteHint = (name: string): string => `a name with spaces needs double quotes: "${name}"`;

/** Words after which a second word is SQL, not the rest of a name. */
const SQL_WORDS = new Set(
  'SELECT FROM WHERE AND OR NOT BY GROUP ORDER AS ON JOIN LEFT RIGHT INNER OUTER FULL CROSS HAVING LIMIT OFFSET DISTINCT CASE WHEN THEN ELSE END IS IN LIKE ILIKE BETWEEN UNION ALL WITH ASC DESC NULLS DESCRIBE SUMMARIZE SHOW PIVOT UNPIVOT USING QUALIFY WINDOW OVER PARTITION INTO VALUES SET'.split(
    ' ',
  ),
);

/** Why a statement that would reach files is refused without file access, and how to have it. */
export const FILES_HINT = 'add --files to give the statement your own file access (-o FILE writes a result without it)';

/**
 * DuckDB's errors in a statement (syntax, an unknown table, a write on a read-only mirror, a file it
 * may not reach) are the user's SQL: a usage error (exit 2) with DuckDB's message and what to do.
 * tds's own errors (an interrupt) pass as they are.
 */
export function sqlError(error: unknown, context: { output?: string } = {}): unknown {
  if (error instanceof TdsError || (error instanceof Error && error.name === 'TimeoutError')) return error;
  const hint = joinHints(nameHint(error), HINTS[duckdbFailure(error)]);
  const folderHint = duckdbFailure(error) === 'cannot-open-file' && context.output;
  return new UsageError(`SQL: ${firstLine(error)}`, {
    ...(hint ? { hint } : folderHint ? { hint: 'check that the folder of -o FILE exists and can be written' } : {}),
  });
}

const HINTS: Partial<Record<ReturnType<typeof duckdbFailure>, string>> = {
  'read-only': 'the mirror is opened read-only: add --write to change it',
  'file-access-off': FILES_HINT,
  'settings-locked': "tds sql fixes DuckDB's settings; --files gives the statement your own file access",
  'no-such-table': 'SHOW TABLES lists the mirror tables; _tds_tables says which is which',
};

// DuckDB's errors carry no codes, only messages. What each message means to tds is decided here and
// nowhere else, by its text in the pinned DuckDB version: test/duckdb/errors.test.ts provokes every one
// of them, so an upgrade that rewords a message fails a test there, not a user.

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

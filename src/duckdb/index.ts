// src/duckdb/: DuckDB, the one way tds runs SQL. Its surface: the engine (engine.ts: a database opened,
// attached or waited for, with its holder named), statements run and interrupted with their plain values
// (statement.ts), rows appended (append-rows.ts), SQL text quoted (sql-text.ts), the files a statement may
// touch (file-access.ts: the sandbox) and DuckDB's error messages, written in one place (errors.ts).
// The DuckDB package is required by engine.ts when a database first opens, so importing this is cheap.

export { openRowAppender, type RowAppender } from './append-rows.js';
export {
  attachDatabase,
  describeHolder,
  finishedResultsCollector,
  MAX_PAUSE_MS,
  openDatabase,
  returnFreedMemory,
  someoneWaits,
  type Database,
  type OpenOptions,
} from './engine.js';
export { duckdbFailure, FILES_HINT, firstLine, joinHints, messageOf, nameHint, sqlError, systemRefusal } from './errors.js';
export type { FileAccess } from './file-access.js';
export { quoteIdent, quoteLiteral, renameListItems } from './sql-text.js';
export { interruptible, plainValue, prepareOne, runStatement, type ResultRecord, type Step } from './statement.js';

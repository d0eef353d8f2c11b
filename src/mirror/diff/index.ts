// src/mirror/diff/: `tds diff`, a mirror table compared at two moments from its history. Its surface:
// runDiff (run-diff.ts: the command's records or summary in any format), openDiff (open-diff.ts: a table
// found by ID or name and WHEN resolved, for MCP's diff_table; diffOfSync for `tds sync --changes`) and
// the records' types (table-diff.ts: the comparison, streamed from DuckDB).

export { diffOfSync, openDiff } from './open-diff.js';
export { runDiff } from './run-diff.js';
export type { Change, DiffRecord } from './table-diff.js';

// src/stats/: `tds stats`. Its surface is `runStats` and the formats (run-stats.ts: one table's figures
// as the terminal view, the HTML page or records), `tableStats` and `DEFAULT_TOP` (figures.ts: the
// figures, all computed by DuckDB in a few scans, which the MCP tools read too), the report's types
// (stats-report.ts), `findMirrorTable` and the mirror's fields (mirror-catalog.ts) and `fieldSql`
// (field-sql.ts, which the checks share). Inside: error-cause.ts (failure causes), terminal-report.ts,
// html-report.ts, svg-charts.ts and figure-text.ts.

export { fieldSql } from './field-sql.js';
export { DEFAULT_TOP, tableStats } from './figures.js';
export { findMirrorTable, mirrorFields } from './mirror-catalog.js';
export { runStats, type StatsFormat } from './run-stats.js';
export type { TableStats } from './stats-report.js';

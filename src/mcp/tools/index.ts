// src/mcp/tools/: one file per MCP tool, each a definition (its zod input, a description written for the
// agent) whose work calls the code the commands call, loaded on the tool's first call. Its surface is the
// tool list serve.ts registers.

export { checkTablesTool } from './check-tables.js';
export { describeTableTool } from './describe-table.js';
export { diffTableTool } from './diff-table.js';
export { listTablesTool } from './list-tables.js';
export { pushRecordsTool } from './push-records.js';
export { querySqlTool } from './query-sql.js';
export { searchRowsTool } from './search-rows.js';
export { syncTablesTool } from './sync-tables.js';
export { tableStatsTool } from './table-stats.js';

// src/mcp/: `tds mcp`, the server on stdio. Its surface is `serveMcp` (serve.ts, with the tool list and
// the stdout it claims) and `DEFAULT_CAPS` (session.ts). Inside: `session.ts` (what the tools share: the
// client, the mirror opened read-only, the options and caps), `tool.ts` (a tool's definition, the Context
// one call runs with, and its result or failure as the agent reads it, within the caps), one file per tool
// under `tools/`, and the work they load on their first call, so the server answers `initialize` without
// it: `catalog.ts` (the tables the mirror holds, and the table a reference names), `run-query.ts`
// (query_sql's statement), `row-search.ts` (search_rows's).

export { serveMcp } from './serve.js';
export { DEFAULT_CAPS } from './session.js';

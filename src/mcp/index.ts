// src/mcp/: `tds mcp`, the server on stdio. Its surface is `serveMcp` (serve.ts, with the tool list and
// the stdout it claims) and `DEFAULT_CAPS` (session.ts). Inside: `session.ts` (what the tools share: the
// client, the mirror opened read-only and the tables it holds, the options and caps), `tool.ts` (a tool's
// definition, the Context one call runs with, and its result or failure as the agent reads it, within the
// caps), `row-search.ts` (search_rows's work, loaded on its first call) and one file per tool under
// `tools/`, each loading the code it calls on its first call, so the server answers `initialize` without it.

export { serveMcp } from './serve.js';
export { DEFAULT_CAPS } from './session.js';

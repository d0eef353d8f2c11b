// emulator/read/: the service's reads. Surface: the read routes (read-routes.ts: listings and row pages
// with their requests, searched and filtered as filter-match.ts says), the cursors (cursor.ts) and how a
// row and a field are rendered (render-row.ts), which the admin routes answer with too.

export { CursorCodec } from './cursor.js';
export { listTables, listWorkspaces, queryPage, rowsPage, tableSchema, type ReadDeps } from './read-routes.js';
export { publicField, renderRow } from './render-row.js';

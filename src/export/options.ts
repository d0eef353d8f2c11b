// src/export/options.ts: the export's start-up surface, what `tds rows` and `tds query`'s definitions read
// (export-request.ts's defaults: --every of --follow, --excel's cell limit). index.ts is the whole surface.

export { FOLLOW_EVERY_DEFAULT_S, SPREADSHEET_CELL_MAX_CHARS } from './export-request.js';

// src/records/options.ts: records' start-up surface, what the command definitions read (the values of
// --header and --cells, shape-options.ts). index.ts is the whole surface.

export { CELLS_MODES, HEADER_MODES, META_KEYS, type CellsMode, type HeaderMode, type ShapeOptions } from './shape-options.js';

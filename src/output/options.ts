// src/output/options.ts: output's start-up surface, what the command definitions read (the formats of
// --format and how one is chosen, format.ts). Light: index.ts is the whole surface.

export {
  chooseExportFormat,
  chooseFormat,
  EXPORT_FORMATS,
  formatFromPath,
  OUTPUT_FORMATS,
  type DataFormat,
  type ExportFormat,
  type Format,
} from './format.js';

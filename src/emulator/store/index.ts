// emulator/store/: the emulator's data. Surface: the records and their IDs (model.ts), EmulatorState and
// EmulatorClock (state.ts), LiveRows (live-rows.ts), RowList (row-list.ts), cell values and dates
// (cell-values.ts), the generated tables (generated-overlay.ts, generated-rows.ts) and the --data file
// (persist.ts, with StateFileError in state-file-error.ts, which `tds emulator` loads cheaply).

export {
  cellText,
  deriveValue,
  isEmptyCell,
  isEmptyValue,
  parseDateOrDateTime,
  parseDateTime,
  presetRange,
  type Range,
} from './cell-values.js';
export { addGeneratedTable, GeneratedOverlay } from './generated-overlay.js';
export { LiveRows, type CellChanges } from './live-rows.js';
export {
  DERIVE_RULES,
  freshId,
  seededId,
  touchRow,
  type ActionSettings,
  type DeriveRule,
  type FieldRec,
  type OrgRec,
  type RowSource,
  type StoredCell,
  type StoredRow,
  type TableRec,
  type WorkspaceRec,
} from './model.js';
export { loadState, saveState } from './persist.js';
export { RowList } from './row-list.js';
export { StateFileError } from './state-file-error.js';
export { EmulatorClock, EmulatorState } from './state.js';

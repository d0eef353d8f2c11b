// src/records/: a service row → the record every output writes (docs/cli.md "Row records"). Its surface:
// the shaping flags (shape-options.ts), the one key rule (column-keys.ts: keyFields), the plan of a
// record's keys (record-plan.ts: planRecord, selectColumns for --columns, statusFieldIds for
// --status-columns), a row → its record (row-shaper.ts: createRowShaper), typed rows for the mirror and
// Parquet (typed-plan.ts, typed-values.ts), the count of cut cells (truncation-tally.ts) and a table
// picked by name (table-ref.ts). Pure and light: the command definitions read the flags' values here.

export { keyFields } from './column-keys.js';
export { planRecord, selectColumns, statusFieldIds, type RecordPlan } from './record-plan.js';
export { createRowShaper, type OutputRecord } from './row-shaper.js';
export { CELLS_MODES, HEADER_MODES, META_KEYS, type CellsMode, type HeaderMode, type ShapeOptions } from './shape-options.js';
export { matchName, pickTable, pickWorkspace } from './table-ref.js';
export { TruncationTally, type TallyJSON } from './truncation-tally.js';
export { TRUNCATED_KEY, typedPlan, typedRowReader, type ColumnRole, type TypedColumn } from './typed-plan.js';
export { isCanonicalInstant, SQL_TYPE_OF, type SqlType, type TypedValue } from './typed-values.js';

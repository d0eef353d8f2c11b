// push/wait/: --wait. Surface: waitAfterSending (wait-rows.ts: --wait polls the row count until the rows
// sent are visible; --wait settled polls the pushed rows until their action cells are done) and -o's rows
// (write-rows.ts: kept by key in a temporary file, written in input order).

export { waitAfterSending, type WaitSummary } from './wait-rows.js';
export type { RowsOutput } from './write-rows.js';

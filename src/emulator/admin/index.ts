// emulator/admin/: the /_emulator/ routes that change the data, answered only where adminAllowed says.
// Surface: the routes (admin-routes.ts: tables, fields, rows, webhooks, the clock, actions rerun), the
// simulator's hooks (sim-hooks.ts: faults, holds, snapshots) and snakeCase (admin-input.ts, where their
// bodies, columns and cells are checked), which the seed names columns with.

export { snakeCase } from './admin-input.js';
export {
  addField,
  addRows,
  addWebhook,
  createTable,
  deleteField,
  deleteRow,
  deleteRows,
  readClock,
  readWebhooks,
  rerunActions,
  setClock,
  updateField,
  updateRow,
} from './admin-routes.js';
export { deleteTable, readHold, releaseHold, setFaults, setHold, tableSnapshot } from './sim-hooks.js';

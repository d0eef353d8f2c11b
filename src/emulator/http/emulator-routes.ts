import { readClock, setClock } from '../admin/clock.js';
import { addField, deleteField, updateField } from '../admin/fields.js';
import { addRows, deleteRow, deleteRows, rerunActions, updateRow } from '../admin/rows.js';
import { createTable } from '../admin/tables.js';
import { ok, type Route } from './server-deps.js';

const route = (method: string, path: string, handle: Route['handle']): Route => ({ method, path, surface: 'emulator', handle });

/** Emulator-only routes that always answer: the request log, and making pending webhook rows visible. */
export const EMULATOR_ROUTES: readonly Route[] = [
  route('GET', '/_emulator/requests', ({ deps }) => ok(deps.requestLog)),
  route('POST', '/_emulator/flush', ({ deps }) => {
    deps.intake.flushAll();
    return ok({ flushed: true });
  }),
];

/** Emulator-only routes that change the data; they answer only on a loopback bind or with --admin. */
export const ADMIN_ROUTES: readonly Route[] = [
  route('POST', '/_emulator/tables', createTable),
  route('POST', '/_emulator/tables/:tableId/rows', addRows),
  route('POST', '/_emulator/tables/:tableId/rows/delete', deleteRows),
  route('POST', '/_emulator/tables/:tableId/actions/rerun', rerunActions),
  route('PATCH', '/_emulator/tables/:tableId/rows/:rowId', updateRow),
  route('DELETE', '/_emulator/tables/:tableId/rows/:rowId', deleteRow),
  route('POST', '/_emulator/tables/:tableId/fields', addField),
  route('PATCH', '/_emulator/tables/:tableId/fields/:fieldId', updateField),
  route('DELETE', '/_emulator/tables/:tableId/fields/:fieldId', deleteField),
  route('GET', '/_emulator/clock', readClock),
  route('POST', '/_emulator/clock', setClock),
  route('POST', '/_emulator/actions/finish', ({ deps }) => {
    deps.live.finishActions();
    return ok({ finished: true });
  }),
];

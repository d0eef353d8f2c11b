import { listTables, listWorkspaces, queryPage, rowsPage, tableSchema } from '../read/read-routes.js';
import { ok, type Reply, type Route, type RouteCall } from './route-table.js';
import { handleWebhook } from '../webhook/route.js';
import {
  readClock,
  setClock,
  addField,
  deleteField,
  updateField,
  addRows,
  deleteRow,
  deleteRows,
  rerunActions,
  updateRow,
  createTable,
  addWebhook,
  readWebhooks,
} from '../admin/admin-routes.js';
import { deleteTable, readHold, releaseHold, setFaults, setHold, setLimits, tableSnapshot } from '../admin/sim-hooks.js';

const webhook = async ({ deps, params, req, entry }: RouteCall): Promise<Reply> => ({
  status: 200,
  body: await handleWebhook(deps, params.webhookId!, req, entry),
});

/** The service's routes (docs/service-api.md section 4); `org` is set once the key was checked. */
export const SERVICE_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/workspaces',
    surface: 'key',
    bucket: 'metadata',
    handle: ({ deps, org, query }) => ok(listWorkspaces(deps, org!, query)),
  },
  {
    method: 'GET',
    path: '/v1/tables',
    surface: 'key',
    bucket: 'metadata',
    handle: ({ deps, org, query }) => ok(listTables(deps, org!, query)),
  },
  {
    method: 'GET',
    path: '/v1/tables/:tableId/schema',
    surface: 'key',
    bucket: 'metadata',
    handle: ({ deps, org, params, query }) => ok(tableSchema(deps, org!, params.tableId!, query)),
  },
  {
    method: 'GET',
    path: '/v1/tables/:tableId/rows',
    surface: 'key',
    bucket: 'rows',
    handle: ({ deps, org, params, query }) => ok(rowsPage(deps, org!, params.tableId!, query)),
  },
  {
    method: 'POST',
    path: '/v1/tables/:tableId/rows/query',
    surface: 'key',
    bucket: 'rows',
    handle: async ({ deps, org, params, req, query }) => ok(await queryPage(deps, org!, params.tableId!, { req, query })),
  },
  { method: 'POST', path: '/v1/webhook/:webhookId', surface: 'webhook', handle: webhook },
  { method: 'HEAD', path: '/v1/webhook/:webhookId', surface: 'webhook', handle: webhook },
];

const route = (method: string, path: string, handle: Route['handle']): Route => ({ method, path, surface: 'emulator', handle });

/** Emulator-only routes that always answer: the request log, and making the webhook rows the intake holds visible. */
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
  route('POST', '/_emulator/tables/:tableId/webhooks', addWebhook),
  route('GET', '/_emulator/tables/:tableId/webhooks', readWebhooks),
  route('POST', '/_emulator/tables/:tableId/rows/delete', deleteRows),
  route('POST', '/_emulator/tables/:tableId/actions/rerun', rerunActions),
  route('PATCH', '/_emulator/tables/:tableId/rows/:rowId', updateRow),
  route('DELETE', '/_emulator/tables/:tableId/rows/:rowId', deleteRow),
  route('POST', '/_emulator/tables/:tableId/fields', addField),
  route('PATCH', '/_emulator/tables/:tableId/fields/:fieldId', updateField),
  route('DELETE', '/_emulator/tables/:tableId/fields/:fieldId', deleteField),
  route('GET', '/_emulator/clock', readClock),
  route('POST', '/_emulator/clock', setClock),
  route('GET', '/_emulator/tables/:tableId/snapshot', tableSnapshot),
  route('DELETE', '/_emulator/tables/:tableId', deleteTable),
  route('POST', '/_emulator/faults', setFaults),
  route('POST', '/_emulator/limits', setLimits),
  route('GET', '/_emulator/hold', readHold),
  route('POST', '/_emulator/hold', setHold),
  route('DELETE', '/_emulator/hold', releaseHold),
  route('POST', '/_emulator/actions/finish', ({ deps }) => {
    deps.live.finishActions();
    return ok({ finished: true });
  }),
];

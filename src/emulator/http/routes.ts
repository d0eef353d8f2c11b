import { listTables, listWorkspaces, queryPage, rowsPage, tableSchema } from '../read/read-routes.js';
import { ok, type Reply, type Route, type RouteCall } from './server-deps.js';
import { handleWebhook } from '../webhook/route.js';

const webhook = async ({ deps, params, req, entry }: RouteCall): Promise<Reply> => ({
  status: 200,
  body: await handleWebhook(deps, params.webhookId!, req, entry),
});

/** The service's routes (service-api.md section 4); `org` is set once the key was checked. */
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

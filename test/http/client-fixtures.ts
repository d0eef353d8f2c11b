import { afterEach, expect } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { ApiClient, type ApiClientOptions } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { startScriptedServer, type ReceivedRequest, type ScriptedServer, type Script } from '../helpers/scripted-server.js';

// The ApiClient tests' fixtures: a scripted server per test and clients of it, both closed after each test.

export const KEY = 'sk_test_0123456789abcdef';
export const servers: ScriptedServer[] = [];
export const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

export async function serve(script: Script): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  servers.push(server);
  return server;
}

export function client(server: ScriptedServer, options: Partial<ApiClientOptions> = {}): ApiClient {
  const created = new ApiClient({ baseUrl: `${server.origin}/v1`, apiKey: KEY, timings: serviceTimings(1000), ...options });
  clients.push(created);
  return created;
}

export async function failure(promise: Promise<unknown>): Promise<TdsError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TdsError);
  return error as TdsError;
}

export const gaps = (requests: ReceivedRequest[]): number[] => requests.slice(1).map((r, i) => r.at - requests[i]!.at);

export const WORKSPACES = {
  workspaces: [
    { id: 'ws_1', name: 'Sales', tableCount: 2 },
    { id: 'ws-2', name: 'Marketing', tableCount: 1 },
  ],
  total: 2,
};

export const TABLES = {
  tables: [
    { id: 't1', name: 'Leads', emoji: ':rocket:', workspaceId: 'ws_1', workspaceName: 'Sales', rowCount: 250, fieldCount: 18 },
    { id: 't2', name: 'Contacts', emoji: null, workspaceId: 'ws_1', workspaceName: 'Sales', rowCount: 10, fieldCount: 3 },
    { id: 't3', name: 'Contacts', emoji: null, workspaceId: 'ws-2', workspaceName: 'Marketing', rowCount: 10, fieldCount: 3 },
  ],
  total: 3,
};

import { afterEach, expect } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { ApiClient, type ApiClientOptions } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { startTestServer, type Reply, type RecordedRequest, type TestServer } from './test-server.js';

// The ApiClient tests' fixtures: a test server per test and clients of it, both closed after each test.

export const KEY = 'sk_test_0123456789abcdef';
export const servers: TestServer[] = [];
export const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

export async function serve(answer: (request: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<TestServer> {
  const server = await startTestServer(answer);
  servers.push(server);
  return server;
}

export function client(server: TestServer, options: Partial<ApiClientOptions> = {}): ApiClient {
  const created = new ApiClient({ baseUrl: server.baseUrl, apiKey: KEY, timings: serviceTimings(1000), ...options });
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

export const gaps = (requests: RecordedRequest[]): number[] => requests.slice(1).map((r, i) => r.at - requests[i]!.at);

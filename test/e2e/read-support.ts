import { expect } from 'vitest';
import type { RunResult } from '../helpers/cli.js';
import { adminRoute } from '../helpers/emulator-fixture.js';

// Shared by the read/config/auth end-to-end tests (which run tds through the fixture's harness): the
// service's own answers and the emulator's request log, to compare with what tds did and wrote.

export interface Target {
  baseUrl: string;
  apiKey: string;
}

export function expectNoSecret(result: RunResult, secret: string): void {
  expect(result.stdout).not.toContain(secret);
  expect(result.stderr).not.toContain(secret);
}

/** The service's own answer, fetched directly, to compare with what tds wrote. */
export async function fetchJson(target: Target, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${target.baseUrl}${path}`, { headers: { authorization: `Bearer ${target.apiKey}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  status: number;
  fault?: string;
}

/** The emulator's request log (an emulator-only route, outside /v1). */
export async function emulatorRequests(target: Target): Promise<LoggedRequest[]> {
  return (await adminRoute<LoggedRequest[]>(target, 'GET', '/requests')).body;
}

import { expect } from 'vitest';
import { runTds, type RunOptions, type RunResult } from '../helpers/cli.js';

// Shared by the read/config/auth end-to-end tests: run tds against an emulator, and check on every
// run that the API key never shows up in what tds printed.

export interface Target {
  baseUrl: string;
  apiKey: string;
}

export const RATE_SCALE = '100';

export function tdsAgainst(target: Target, env: Record<string, string | undefined> = {}) {
  return async (args: string[], options: RunOptions = {}): Promise<RunResult> => {
    const result = await runTds(args, {
      ...options,
      env: { TDS_BASE_URL: target.baseUrl, TDS_API_KEY: target.apiKey, TDS_RATE_SCALE: RATE_SCALE, ...env, ...options.env },
    });
    expectNoSecret(result, target.apiKey);
    return result;
  };
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
  const response = await fetch(new URL('/_emulator/requests', target.baseUrl));
  return (await response.json()) as LoggedRequest[];
}

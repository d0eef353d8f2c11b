import { expect } from 'vitest';
import type { RunOptions, RunResult } from '../helpers/cli.js';
import { RATE_SCALE as SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';

// Shared by the read/config/auth end-to-end tests: run tds (in-process) against an emulator, and check
// on every run that the API key never shows up in what tds printed.

export interface Target {
  baseUrl: string;
  apiKey: string;
}

/** The suite's rate scale as an argument (`--rate-scale`, TDS_RATE_SCALE): see helpers/rate-scale.ts. */
export const RATE_SCALE = String(SCALE);

/** tds against `target` at the suite's rate scale, as the emulator processes run (startEmulatorProcess). */
export function tdsAgainst(target: Target, env: Record<string, string | undefined> = {}) {
  return async (args: string[], options: RunOptions = {}): Promise<RunResult> => {
    const result = await runInProcess(args, {
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

import { expect } from 'vitest';
import type { Harness } from './emulator-fixture.js';

/** `tds sql QUERY --format json` over the harness's mirror: its rows (the run must exit 0). */
export async function sqlJson<T = Record<string, unknown>>(harness: Pick<Harness, 'tds'>, query: string): Promise<T[]> {
  const result = await harness.tds(['sql', query, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T[];
}

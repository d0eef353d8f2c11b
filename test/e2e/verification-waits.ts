import { expect, vi } from 'vitest';
import type { Harness } from '../helpers/emulator-fixture.js';
import { sqlJson } from '../helpers/sql-json.js';
import type { RequestLogEntry } from '../../src/emulator/index.js';

// What the verification tests (sync-freshness-verify.test.ts) wait on: first the emulator's request log, which
// costs next to nothing to read; then the mirror, which each read opens (an in-process `tds sql`, some 45 ms of
// CPU), only once the log shows that what the test waits for can be there.

/** The table listings (each round's one request) the emulator logged since request log entry `since`. */
export const listings = (harness: Harness, since: number): number =>
  harness.emu.requestLog.slice(since).filter((entry) => entry.method === 'GET' && /\/v1\/tables(\?|$)/.test(entry.path)).length;

/** Row reads the emulator logged since request log entry `since` (a verification's pages among them). */
export const rowReads = (harness: Harness, since: number): RequestLogEntry[] =>
  harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows');

/**
 * Waits, on the request log, until `count` row reads have come since entry `since`: what a verification of that
 * many pages must have read before the mirror can show it. Reading the mirror (an in-process `tds sql`, a DuckDB
 * open) costs far more than reading the log, so the waits below read it only once this much has happened.
 */
export async function rowReadsCame(harness: Harness, since: number, count: number): Promise<void> {
  await vi.waitFor(() => expect(rowReads(harness, since).length).toBeGreaterThanOrEqual(count), { timeout: 60_000, interval: 20 });
}

/** The table's verified_at (ms). */
export const verifiedAt = async (harness: Harness): Promise<number> =>
  Date.parse((await sqlJson<{ v: string }>(harness, 'SELECT verified_at::VARCHAR AS v FROM _tds_tables'))[0]!.v);

/** Waits until a verification that began after `after` (a verified_at) is complete: its `pages` read since request log entry `since` first. */
export async function verifiedAfter(harness: Harness, after: number, { since, pages }: { since: number; pages: number }): Promise<void> {
  await rowReadsCame(harness, since, pages);
  await vi.waitFor(async () => expect(await verifiedAt(harness)).toBeGreaterThan(after), { timeout: 60_000, interval: 100 });
}

/** Waits until a verification is under way (a page read, more to come): a row read since request log entry `since` first. */
export async function verifying(harness: Harness, since: number): Promise<void> {
  await rowReadsCame(harness, since, 1);
  await vi.waitFor(
    async () => expect((await sqlJson<{ p: string | null }>(harness, 'SELECT verify_pass AS p FROM _tds_tables'))[0]!.p).not.toBeNull(),
    { timeout: 30_000, interval: 100 },
  );
}

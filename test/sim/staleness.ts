import type { Ledger } from './invariants.js';
import { query } from './mirror-view.js';
import type { World } from './world.js';

// A table is stale when its last verification (`_tds_tables.verified_at`, on the service's clock) is older
// than the bound its follower recorded (`_tds_tables.max_stale`), measured on the service's clock when the
// command heard the service, else on this machine's (docs/cli.md, Freshness; issue 42, finding 6). The
// oracle of it: the mirror's record and the clock read before and after the command that said it.

/** A table's verification as the mirror records it (ms). */
export interface Verification {
  verifiedAt: number | null;
  maxStaleMs: number | null;
}

/** The moments a command may have measured on: its clock read before it started and after it ended (ms). */
export interface ClockSpan {
  from: number;
  to: number;
}

/** Each mirrored table's verification, by table ID. */
export async function verifications(world: World): Promise<Map<string, Verification>> {
  const rows = await query(world, 'SELECT table_id, epoch_ms(verified_at) AS v, epoch_ms(max_stale) AS b FROM _tds_tables');
  const ms = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
  return new Map(rows.map((row) => [String(row.table_id), { verifiedAt: ms(row.v), maxStaleMs: ms(row.b) }]));
}

/** Whether a table is stale at `now`: one never verified, or without a bound, is not. */
export function staleAt(verification: Verification, now: number): boolean {
  const { verifiedAt, maxStaleMs } = verification;
  return verifiedAt !== null && maxStaleMs !== null && now - verifiedAt > maxStaleMs;
}

/** A margin either side of the span: the service's Date header is to the second, verified_at read to the millisecond. */
const ROUNDING_MS = 2_000;

/** Whether the table is stale all through the span (true), fresh all through it (false), or became stale in it (undefined: either answer holds). */
export function expectedStale(verification: Verification, span: ClockSpan): boolean | undefined {
  const early = staleAt(verification, span.from - ROUNDING_MS);
  return early === staleAt(verification, span.to + ROUNDING_MS) ? early : undefined;
}

/**
 * Invariant 9: what a command said of tables' staleness (`said`), against the mirror's record now and the
 * clock it measured on (read before and after it ran); a table that became stale during the command is not judged.
 */
export async function judgeStale(
  world: World,
  ledger: Ledger,
  what: string,
  said: ReadonlyArray<{ tableId: string; stale?: boolean | undefined }>,
  span: ClockSpan,
): Promise<void> {
  if (said.length === 0) return;
  const recorded = await verifications(world);
  for (const { tableId, stale } of said) {
    const verification = recorded.get(tableId);
    const expected = verification && expectedStale(verification, span);
    if (expected === undefined) continue;
    ledger.check(
      stale === expected,
      9,
      () =>
        `${what} says ${tableId} is ${stale === undefined ? 'neither stale nor not' : stale ? 'stale' : 'not stale'}; verified ${new Date(verification!.verifiedAt!).toISOString()}, bound ${verification!.maxStaleMs} ms, clock ${new Date(span.from).toISOString()} to ${new Date(span.to).toISOString()}`,
    );
  }
}

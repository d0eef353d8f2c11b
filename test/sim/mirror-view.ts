import { existsSync } from 'node:fs';
import { runClient } from './client.js';
import type { World } from './world.js';

// What the simulator reads of the mirror: each table's rows as versions (ID and _updatedAt), the tables it
// holds and the names of their history macros, all through `tds sql` (read-only). The invariants compare
// these with the oracle (world.ts), never with what tds says of itself.

/** Row ID → _updatedAt (ms). */
export type Versions = Map<string, number>;

export interface MirroredTable {
  tableId: string;
  mirrorTable: string;
  atSyncMacro: string | null;
  atMacro: string | null;
  historyTable: string | null;
}

/** A SQL identifier in double quotes. */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Rows of a query as objects (NDJSON through `tds sql`); throws when tds fails. */
export async function query(world: World, sql: string): Promise<Array<Record<string, unknown>>> {
  const run = await runClient(world, ['sql', sql, '--format', 'ndjson']);
  if (run.code !== 0) throw new MirrorReadError(`tds sql failed (${run.code}): ${run.stderr.trim()}\n  ${sql}`);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export class MirrorReadError extends Error {}

/** The mirror's tables, or none when no sync made the file yet. */
export async function mirroredTables(world: World): Promise<MirroredTable[]> {
  if (!existsSync(world.harness.db)) return [];
  const rows = await query(
    world,
    'SELECT table_id, mirror_table, at_sync_macro, at_macro, history_table FROM _tds_tables ORDER BY table_id',
  );
  return rows.map((row) => ({
    tableId: String(row.table_id),
    mirrorTable: String(row.mirror_table),
    atSyncMacro: (row.at_sync_macro as string | null) ?? null,
    atMacro: (row.at_macro as string | null) ?? null,
    historyTable: (row.history_table as string | null) ?? null,
  }));
}

/** The service's Date header, the clock tds reads the start of a pass by, is to the second. */
export const DATE_RESOLUTION_MS = 1000;

/**
 * A FROM clause (for versionsOf) of the rows the table's history holds as deleted, each with when the
 * history places its deletion (as its "version"): the start of the pass that found it gone, on the
 * service's clock as its Date header gave it, cut down to the second.
 */
export function deletionsPlaced(table: MirroredTable): string | undefined {
  if (!table.historyTable) return undefined;
  return `(SELECT "_id", "_replacedAt" AS "_updatedAt" FROM ${ident(table.historyTable)} WHERE "_change" = 'deleted')`;
}

/**
 * Whether `at` falls within the second the history placed the row's deletion in (`placed`: row ID →
 * that start). The pass began somewhere in that second, so the history cannot say whether the row was
 * still there at a moment within it (CLI.md: a deletion counts from the pass that found it); the oracle,
 * which knows, is not compared there.
 */
export function deletionUnplaced(placed: Versions | undefined, id: string, at: string): boolean {
  const start = placed?.get(id);
  const moment = Date.parse(at);
  return start !== undefined && start <= moment && moment < start + DATE_RESOLUTION_MS;
}

/** Versions of several row sets in one query: `sources` maps a name to a FROM clause. */
export async function versionsOf(world: World, sources: Map<string, string>): Promise<Map<string, Versions>> {
  const out = new Map<string, Versions>([...sources.keys()].map((name) => [name, new Map()]));
  if (sources.size === 0) return out;
  const parts = [...sources].map(([name, from]) => `SELECT ${literal(name)} AS src, "_id" AS id, epoch_ms("_updatedAt") AS u FROM ${from}`);
  for (const row of await query(world, parts.join(' UNION ALL '))) out.get(String(row.src))!.set(String(row.id), Number(row.u));
  return out;
}

/** Each mirrored table's rows now, by table ID. */
export async function mirrorVersions(world: World, tables: readonly MirroredTable[]): Promise<Map<string, Versions>> {
  return versionsOf(world, new Map(tables.map((table) => [table.tableId, ident(table.mirrorTable)])));
}

/** A table's sync as `tds sync --json` summarises it. */
export interface SyncSummaryTable {
  tableId: string;
  mirrorTable: string;
  syncId: number;
  mode: string;
  complete: boolean;
  /** past the bound its follower recorded (the --json summary's; the mirror's _tds_syncs does not say) */
  stale?: boolean;
}

/** Each table's `_tds_changes.delivered_sync` (none before a first --changes). */
export async function deliveredSyncs(world: World): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const has = await query(world, "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '_tds_changes'");
  if (Number(has[0]?.n) === 0) return out;
  for (const row of await query(world, 'SELECT table_id, delivered_sync FROM _tds_changes'))
    out.set(String(row.table_id), Number(row.delivered_sync));
  return out;
}

/** Each table's `_tds_tables.verified_at` (ISO), where it has one. */
export async function verifiedTimes(world: World): Promise<Map<string, string>> {
  const rows = await query(world, 'SELECT table_id, epoch_ms(verified_at) AS v FROM _tds_tables WHERE verified_at IS NOT NULL');
  return new Map(rows.map((row) => [String(row.table_id), new Date(Number(row.v)).toISOString()]));
}

/** The tables of `tds sync --json`. */
export function parseSyncSummary(stdout: string): SyncSummaryTable[] {
  const summary = stdout.split('\n').filter(Boolean).at(-1);
  return summary ? (JSON.parse(summary) as { tables: SyncSummaryTable[] }).tables : [];
}

/** The newest sync ID in the mirror (0 before its first). */
export async function lastSyncId(world: World): Promise<number> {
  if (!existsSync(world.harness.db)) return 0;
  return Number((await query(world, 'SELECT coalesce(max(sync_id), 0) AS n FROM _tds_syncs'))[0]?.n ?? 0);
}

/** The last sync of each table after `after`, as the summary of `--json` would say it. */
export async function syncsSince(world: World, after: number): Promise<SyncSummaryTable[]> {
  const rows = await query(
    world,
    `SELECT table_id, mirror_table, sync_id, mode, complete FROM _tds_syncs WHERE sync_id > ${after} QUALIFY row_number() OVER (PARTITION BY table_id ORDER BY sync_id DESC) = 1 ORDER BY sync_id`,
  );
  return rows.map((row) => ({
    tableId: String(row.table_id),
    mirrorTable: String(row.mirror_table),
    syncId: Number(row.sync_id),
    mode: String(row.mode),
    complete: row.complete === true,
  }));
}

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { runClient, type ClientRun } from './client.js';
import { versionsDiffer, type Ledger } from './invariants.js';
import { ident, mirroredTables, mirrorVersions, query, versionsOf, type MirroredTable, type Versions } from './mirror-view.js';
import type { World } from './world.js';

// Invariant 4, the lake: what `tds sync --lake` wrote, read as a user would, with the DuckDB queries of each
// table folder's README ("now", and "as of sync 42" for every sync the lake holds), compared with the mirror
// now and with T_at_sync(N); and `tds lake check`, which must agree. A folder is compared only while the
// lake is up to date with its table (a sync without --lake, killed or failed, leaves it behind until the
// next --lake sync of the table writes the missing partitions).

export class LakeView {
  /** the lake folder of every --lake sync of the run */
  readonly dir: string;
  /** tables whose folder holds every sync of the mirror (the last sync that touched them wrote the lake) */
  private readonly upToDate = new Set<string>();

  constructor(
    private readonly world: World,
    private readonly ledger: Ledger,
    private readonly checkRun: (run: ClientRun) => void,
  ) {
    this.dir = join(world.harness.dir, 'lake');
  }

  /** Tables a command synced without writing the lake (or not to the end). */
  outOfDate(tableIds: readonly string[]): void {
    for (const id of tableIds) this.upToDate.delete(id);
  }

  /** After a --lake sync that exited 0: its tables' folders equal the mirror, now and at every sync. */
  async afterSync(tableIds: readonly string[]): Promise<void> {
    for (const id of tableIds) this.upToDate.add(id);
    await this.compare(tableIds);
  }

  /** `tds lake compact`: exit 0, and the lake reads as it did before (the folders up to date: as the mirror). */
  async compact(): Promise<void> {
    if (!existsSync(this.dir)) return;
    const mirrored = await mirroredTables(this.world);
    const before = new Map<string, Versions>();
    for (const table of mirrored) {
      const read = await this.readNow(table.mirrorTable);
      if (read) before.set(table.mirrorTable, read);
    }
    const run = await runClient(this.world, ['lake', 'compact', this.dir]);
    this.checkRun(run);
    this.ledger.check(
      run.code === 0,
      4,
      () => `tds lake compact exited ${run.code}: ${run.stderr.trim().split('\n').slice(-2).join(' | ')}`,
    );
    for (const [folder, versions] of before) {
      const after = (await this.readNow(folder)) ?? new Map();
      const differs = versionsDiffer(versions, after);
      this.ledger.check(differs === '', 4, () => `the lake's ${folder} read "now" after tds lake compact: ${differs}`);
    }
    await this.compare(mirrored.map((table) => table.tableId));
  }

  /** The folders of the tables given that are up to date, each against the mirror; then `tds lake check` when every folder is. */
  private async compare(tableIds: readonly string[]): Promise<void> {
    const mirrored = await mirroredTables(this.world);
    const horizons = await pruneHorizons(this.world);
    const compared = mirrored.filter((table) => tableIds.includes(table.tableId) && this.upToDate.has(table.tableId));
    const mirror = await mirrorVersions(this.world, compared);
    for (const table of compared) {
      const lake = (await this.readNow(table.mirrorTable)) ?? new Map();
      const differs = versionsDiffer(mirror.get(table.tableId)!, lake);
      this.ledger.check(differs === '', 4, () => `the lake's ${table.mirrorTable} read "now" with its README's query: ${differs}`);
      await this.compareAsOf(table, horizons.get(table.tableId)?.fromSync ?? 0);
    }
    const folders = existsSync(this.dir) ? (await readdir(this.dir, { withFileTypes: true })).filter((e) => e.isDirectory()) : [];
    const byFolder = new Map(mirrored.map((table) => [table.mirrorTable, table.tableId]));
    if (folders.length === 0 || !folders.every((folder) => this.upToDate.has(byFolder.get(folder.name) ?? ''))) return;
    const run = await runClient(this.world, ['lake', 'check', this.dir]);
    this.checkRun(run);
    this.ledger.check(
      run.code === 0,
      4,
      () =>
        `tds lake check exited ${run.code} where the lake was read equal to the mirror: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }

  /** The README's "as of sync N" for every sync whose partition the lake holds, against the mirror's T_at_sync(N). */
  private async compareAsOf(table: MirroredTable, knownFromSync: number): Promise<void> {
    if (!table.atSyncMacro) return;
    const changes = join(this.dir, table.mirrorTable, 'changes');
    if (!existsSync(changes)) return;
    const syncs = (await readdir(changes))
      .map((name) => Number(/^sync_id=(\d+)$/.exec(name)?.[1] ?? Number.NaN))
      .filter((n) => Number.isFinite(n) && n >= knownFromSync)
      .sort((a, b) => a - b);
    const sources = new Map(syncs.map((n) => [String(n), `${ident(table.atSyncMacro!)}(${n})`]));
    const fromMirror = await versionsOf(this.world, sources);
    for (const n of syncs) {
      const lake = (await this.readAsOf(table.mirrorTable, n)) ?? new Map();
      const differs = versionsDiffer(fromMirror.get(String(n))!, lake);
      this.ledger.check(
        differs === '',
        4,
        () => `the lake's ${table.mirrorTable} read "as of sync ${n}" with its README's query: ${differs}`,
      );
    }
  }

  private async readNow(folder: string): Promise<Versions | undefined> {
    const sql = await this.recipe(folder, '-- now\n');
    return sql === undefined ? undefined : this.read(sql);
  }

  private async readAsOf(folder: string, syncId: number): Promise<Versions | undefined> {
    const sql = await this.recipe(folder, '-- as of sync 42');
    // the query's 42s, not a partition's path (sync_id=42) that a retyped table's runs name
    return sql === undefined ? undefined : this.read(sql.replace(/(?<!=)\b42\b/g, String(syncId)));
  }

  /** A query of the README's DuckDB section: the statement after the comment line that starts with `marker`. */
  private async recipe(folder: string, marker: string): Promise<string | undefined> {
    const readme = join(this.dir, folder, 'README.md');
    if (!existsSync(readme)) return undefined;
    const text = await readFile(readme, 'utf8');
    const duckdb = text.slice(text.indexOf('## DuckDB'));
    const at = duckdb.indexOf(marker);
    if (at < 0) throw new Error(`the lake README of ${folder} has no "${marker.trim()}" query`);
    const body = duckdb.slice(duckdb.indexOf('\n', at) + 1);
    return body.slice(0, body.indexOf(';\n'));
  }

  /** A README query run from the lake's folder, as the README says, in a DuckDB of the simulator's own. */
  private async read(sql: string): Promise<Versions> {
    const instance = await DuckDBInstance.create(':memory:', { file_search_path: this.dir });
    const out: Versions = new Map();
    try {
      const connection = await instance.connect();
      const reader = await connection.runAndReadAll(`SELECT "_id" AS id, epoch_ms("_updatedAt") AS u FROM (${sql})`);
      for (const row of reader.getRowObjectsJS()) out.set(String(row.id), Number(row.u));
      connection.closeSync();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.ledger.check(false, 4, () => `a query of the lake's README failed: ${message.split('\n')[0]}`);
    } finally {
      instance.closeSync();
    }
    return out;
  }
}

/** The earliest sync and moment (ms) a table's history still answers for after --prune-history. */
export interface PruneHorizon {
  fromSync: number;
  from: number;
}

/** Each table's prune horizon, where --prune-history dropped versions. */
export async function pruneHorizons(world: World): Promise<Map<string, PruneHorizon>> {
  if (!existsSync(world.harness.db)) return new Map();
  const has = await query(world, "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '_tds_pruned'");
  if (Number(has[0]?.n) === 0) return new Map();
  const rows = await query(world, 'SELECT table_id, known_from_sync, epoch_ms(known_from) AS known_from FROM _tds_pruned');
  return new Map(rows.map((row) => [String(row.table_id), { fromSync: Number(row.known_from_sync), from: Number(row.known_from) }]));
}

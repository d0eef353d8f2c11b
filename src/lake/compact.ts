import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  CHANGE_COLUMN,
  describeFolder,
  folderIdentity,
  folderState,
  SNAPSHOT_PARTITION,
  SYNC_PARTITION,
  TEMPORARY,
  VALID_FROM_COLUMN,
  VALID_TO_COLUMN,
  wholePartitions,
} from './lake.js';
import { commitPartition, removeStalePartials } from './commit-partition.js';
import { changesRead, snapshotRead } from './recipes.js';
import { retypedFiles, type RetypedFiles } from './retyped-files.js';

// `tds lake compact`: a table's changes rewritten into one snapshot partition, `snapshot/as_of=<S>`,
// with every version up to sync S and its two ends (`_valid_from`, `_valid_to`: the SCD2 pair) and
// `_replacedBy`, the sync that ended it; so "now" reads one file set, and "as of" any moment or sync up
// to S reads the same one. It works from the lake alone (no mirror): the newest snapshot's versions
// that were still current are carried on with the changes after it.

/** The sync that ended a snapshot version (null: still current at S). */
const REPLACED_BY = '_replacedBy';

export interface CompactResult {
  folder: string;
  /** The sync the new snapshot holds up to (undefined: nothing to compact). */
  asOf?: number;
  versions: number;
  /** Bytes of `changes/` removed by --drop-changes. */
  freed: number;
}

/**
 * Compacts one table folder; with `dropChanges`, the change partitions the snapshot holds are removed.
 * Older snapshots are removed once the new one is whole.
 */
export async function compactFolder(connection: DuckDBConnection, folder: string, dropChanges: boolean): Promise<CompactResult> {
  const identity = await folderIdentity(folder);
  await removeStalePartials(join(folder, 'changes', TEMPORARY));
  const state = await folderState(folder);
  const asOf = state.changes.at(-1);
  if (identity === undefined || asOf === undefined) {
    const freed = dropChanges && state.snapshotAsOf !== undefined ? await dropChangesUpTo(folder, state.snapshotAsOf) : 0;
    return { folder, versions: 0, freed };
  }
  // the snapshot holds each retyped column in the type readers get, converted as the mirror converted it
  const retyped = await retypedFiles(connection, folder, state);
  const query = snapshotQuery(folder, state.snapshotAsOf, asOf, retyped);
  const versions = await commitPartition({
    connection,
    query,
    folder: join(folder, 'snapshot', `${SNAPSHOT_PARTITION}=${asOf}`),
    temporary: join(folder, 'snapshot', TEMPORARY),
    // rows as wide as the snapshot's, without computing its windows twice
    sample: `SELECT * FROM ${changesRead(folder, retyped)}`,
  });
  for (const older of await wholePartitions(join(folder, 'snapshot'), SNAPSHOT_PARTITION)) {
    if (older < asOf) await rm(join(folder, 'snapshot', `${SNAPSHOT_PARTITION}=${older}`), { recursive: true, force: true });
  }
  const freed = dropChanges ? await dropChangesUpTo(folder, asOf) : 0;
  await describeFolder(connection, folder, identity);
  return { folder, asOf, versions, freed };
}

/**
 * Every version up to sync `asOf`: the earlier snapshot's (those it closed stay as they are; those
 * still current are carried on as events of the sync that wrote them) and the changes after it, each
 * event ordered by its sync and time; a version ends where the next event of its row begins
 * (a newer version, or a tombstone, which is itself no version).
 */
function snapshotQuery(folder: string, previous: number | undefined, asOf: number, retyped: RetypedFiles): string {
  const changes =
    `SELECT * EXCLUDE (${SYNC_PARTITION}), ${SYNC_PARTITION} AS _event_sync FROM ${changesRead(folder, retyped)} ` +
    `WHERE ${SYNC_PARTITION} <= ${asOf}` +
    (previous === undefined ? '' : ` AND ${SYNC_PARTITION} > ${previous}`);
  const snapshot = previous === undefined ? undefined : snapshotRead(folder, previous, retyped);
  const events =
    snapshot === undefined
      ? changes
      : `SELECT * EXCLUDE (${VALID_TO_COLUMN}, ${REPLACED_BY}), "_syncId" AS _event_sync FROM ${snapshot} WHERE ${VALID_TO_COLUMN} IS NULL
         UNION ALL BY NAME ${changes}`;
  const ordered = `SELECT *,
      lead(${VALID_FROM_COLUMN}) OVER events AS ${VALID_TO_COLUMN},
      lead(_event_sync) OVER events AS ${REPLACED_BY}
    FROM (${events})
    WINDOW events AS (PARTITION BY _id ORDER BY _event_sync, ${VALID_FROM_COLUMN}, ${CHANGE_COLUMN} = 'deleted')`;
  const versions = `SELECT * EXCLUDE (_event_sync) FROM (${ordered}) WHERE ${CHANGE_COLUMN} <> 'deleted'`;
  const closed = snapshot === undefined ? '' : ` UNION ALL BY NAME SELECT * FROM ${snapshot} WHERE ${VALID_TO_COLUMN} IS NOT NULL`;
  return `SELECT * FROM (${versions}${closed}) ORDER BY _id, ${VALID_FROM_COLUMN}`;
}

/** Removes `changes/sync_id=N` for N up to `asOf`; the bytes freed. */
async function dropChangesUpTo(folder: string, asOf: number): Promise<number> {
  let freed = 0;
  const changes = join(folder, 'changes');
  for (const syncId of await wholePartitions(changes, SYNC_PARTITION)) {
    if (syncId > asOf) continue;
    const partition = join(changes, `${SYNC_PARTITION}=${syncId}`);
    for (const name of await readdir(partition)) freed += (await stat(join(partition, name))).size;
    await rm(partition, { recursive: true, force: true });
  }
  return freed;
}

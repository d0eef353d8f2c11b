// @ts-check
// Phase 2 of the sync bench: the real limits; ADDED rows added, then an incremental sync of the mirror phase 1 built.
import { addRows, generatedTable, requestLog } from '../emulator-api.mjs';
import { n, seconds, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, scalar, tds } from './context.mjs';
import { ADDED, PAGE, ROWS, TARGET } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */

/**
 * The emulator is started from the state phase 1 saved, and saves it again (with the new rows) for phase 3.
 * @param {SyncContext} ctx
 */
export async function incrementalSync(ctx) {
  console.log(
    `\n2. incremental sync after ${n(ADDED)} new rows, real rate limits (60 row reads a minute). ` +
      `Targets: <= ${TARGET.incrementalRequests} row requests (a re-export: ${n((ROWS + ADDED) / PAGE)}); wall time <= ${TARGET.incrementalSeconds} s`,
  );
  const limited = await startEmulator(['--data', ctx.stateFile], ctx.emulators);
  const table = await generatedTable(limited);
  await addRows(limited, table, ADDED);
  const synced = await tds(ctx, ['sync', '--db', ctx.db, '--json'], { probe: 'incremental' });
  mustSucceed(synced, 'tds sync (incremental)');
  const result = onlyTable(synced);
  const log = (await requestLog(limited)).filter((entry) => entry.at >= synced.startedAt); // not the bench's own reads
  const rowReads = log.filter((entry) => entry.bucket === 'rows');
  const others = log.filter((entry) => entry.bucket !== 'rows');
  const throttled = log.filter((entry) => entry.status === 429).length;
  console.log(
    `tds sync --db mirror.duckdb: ${seconds(synced.ms)} wall (sync's own figure ${result.seconds} s); ${result.mode}, ${n(result.rowsRead)} rows read, ` +
      `${n(result.inserted)} inserted, ${n(result.updated)} updated; emulator log: ${rowReads.length} row requests, ` +
      `${others.length} other requests, ${throttled} answered 429; sync --json says ${result.requests} requests`,
  );
  const count = await scalar(ctx, `SELECT count(*) AS n FROM "${result.mirrorTable}"`);
  ctx.check(
    result.mode === 'incremental' && result.inserted === ADDED && count === ROWS + ADDED,
    `${n(count)} rows in the mirror, ${n(result.inserted)} inserted`,
  );
  ctx.check(rowReads.length <= TARGET.incrementalRequests, `${rowReads.length} row requests (target <= ${TARGET.incrementalRequests})`);
  ctx.check(synced.ms <= TARGET.incrementalSeconds * 1000, `wall time ${seconds(synced.ms)} (target <= ${TARGET.incrementalSeconds} s)`);
  await limited.stop(); // saves --data (with the new rows) for phase 3
}

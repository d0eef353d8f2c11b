// @ts-check
// Phase 4 of the sync bench: a first sync of FAR_ROWS (5,000) rows at the real row-read limit, on loopback and
// at each round trip of BENCH_SYNC_LATENCIES (`tds emulator --latency`), in the same run. 5,000 rows are 50
// pages, inside the limit's burst of 60: nothing waits for the limit, so the pages' chain sets the time. Each
// page waits for the previous one's cursor, so a far service adds a round trip per page (50 x 200 ms = 10 s)
// that no client reading chained cursors can avoid: the target (<= 1.1x loopback) is checked against the
// least time the chain allows (loopback's time + a round trip for each request), and the loopback ratio
// is reported beside it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generatedTable, requestLog } from '../emulator-api.mjs';
import { n, seconds, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, tds } from './context.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */

const FAR_ROWS = Number(process.env.BENCH_SYNC_FAR_ROWS ?? 5_000);
const LATENCIES = (process.env.BENCH_SYNC_LATENCIES ?? '0,200').split(',').filter(Boolean).map(Number);
const TARGET = 1.1;

/** @param {SyncContext} ctx */
export async function farSync(ctx) {
  console.log(
    `\n4. first sync of ${n(FAR_ROWS)} rows at the real row-read limit, at ${LATENCIES.join(' and ')} ms round trip. ` +
      `Target: <= ${TARGET}x loopback plus a round trip per request (chained cursors)`,
  );
  /** @type {number | undefined} */
  let loopbackMs;
  for (const ms of LATENCIES) {
    const emu = await startEmulator(['--rows', String(FAR_ROWS), ...(ms > 0 ? ['--latency', String(ms)] : [])], ctx.emulators);
    const table = await generatedTable(emu);
    const db = join(ctx.dir, `far-${ms}.duckdb`);
    const synced = await tds(ctx, ['sync', table.id, '--db', db, '--json'], { probe: `far-sync-${ms}` });
    mustSucceed(synced, `tds sync at ${ms} ms`);
    const result = onlyTable(synced);
    const log = (await requestLog(emu)).filter((entry) => entry.at >= synced.startedAt);
    const throttled = log.filter((entry) => entry.status === 429).length;
    loopbackMs ??= ms === 0 ? synced.ms : undefined;
    const chained = loopbackMs === undefined ? undefined : loopbackMs + log.length * ms;
    console.log(
      `tds sync at ${ms} ms round trip: ${seconds(synced.ms)} wall; ${n(result.inserted)} rows, ${log.length} requests ` +
        `(${log.filter((entry) => entry.bucket === 'rows').length} row reads), ${throttled} answered 429` +
        (loopbackMs !== undefined && ms > 0 ? `; ${(synced.ms / loopbackMs).toFixed(2)}x loopback` : ''),
    );
    ctx.check(result.complete && result.inserted === FAR_ROWS, `every row mirrored at ${ms} ms (${n(result.inserted)})`);
    ctx.check(throttled === 0, `${throttled} 429s at ${ms} ms (target 0)`);
    if (chained !== undefined && ms > 0) {
      ctx.check(
        synced.ms <= chained * TARGET,
        `${(synced.ms / chained).toFixed(2)}x loopback + ${log.length} round trips (target <= ${TARGET}x)`,
      );
    }
    await emu.stop();
    rmSync(db, { force: true });
  }
}

// @ts-check
// Phase 4 of the sync bench: a first sync of FAR_ROWS (5,000) rows at the real row-read limit, on loopback and
// at each round trip of BENCH_SYNC_LATENCIES (`tds emulator --latency`), in the same run. 5,000 rows are 50
// pages, inside the limit's burst of 60: nothing waits for the limit, so the pages' chain sets the time. Each
// page waits for the previous one's cursor, so a far service adds a round trip per page (50 x 200 ms = 10 s)
// that no client reading chained cursors can avoid: the target (<= 1.1x loopback) is checked against the
// least time the chain allows (loopback's time + a round trip for each request), and the loopback ratio
// is reported beside it.
// Then a first sync of TABLES (10) tables of TABLE_ROWS (500) rows each, the same way: each table's pages are a
// chain, but the tables' chains run at once, so a far service costs one chain's round trips, not ten. Target:
// <= 1.2x loopback plus the round trips of the longest table's chain and of the requests of no table (the listing).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fetchJson, generatedTable, requestLog } from '../emulator-api.mjs';
import { n, seconds, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, tds } from './context.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */

const FAR_ROWS = Number(process.env.BENCH_SYNC_FAR_ROWS ?? 5_000);
const LATENCIES = (process.env.BENCH_SYNC_LATENCIES ?? '0,200').split(',').filter(Boolean).map(Number);
const TARGET = 1.1;
const TABLES = Number(process.env.BENCH_SYNC_FAR_TABLES ?? 10);
const TABLE_ROWS = Number(process.env.BENCH_SYNC_FAR_TABLE_ROWS ?? 500);
const TABLES_TARGET = 1.2;

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
  await farTables(ctx);
}

/**
 * The first sync of TABLES tables of TABLE_ROWS rows at each latency: one chain's round trips, the chains at once.
 * @param {SyncContext} ctx
 */
async function farTables(ctx) {
  console.log(
    `\n4b. first sync of ${TABLES} tables of ${n(TABLE_ROWS)} rows at the real row-read limit, at ${LATENCIES.join(' and ')} ms round trip. ` +
      `Target: <= ${TABLES_TARGET}x loopback plus one chain's round trips (the tables' chains at once)`,
  );
  /** @type {number | undefined} */
  let loopbackMs;
  for (const ms of LATENCIES) {
    const emu = await startEmulator(ms > 0 ? ['--latency', String(ms)] : [], ctx.emulators);
    /** @type {string[]} */
    const ids = [];
    for (let t = 1; t <= TABLES; t += 1) {
      /** @type {{ table: { id: string } }} */
      const made = await fetchJson(emu, 'POST', '/_emulator/tables', {
        workspace: 'Sales',
        name: `Far ${t}`,
        fields: [
          { label: 'Name', type: 'text' },
          { label: 'Amount', type: 'number' },
        ],
      });
      const rows = Array.from({ length: TABLE_ROWS }, (_, i) => ({ cells: { Name: `row ${i}`, Amount: i } }));
      await fetchJson(emu, 'POST', `/_emulator/tables/${made.table.id}/rows`, { rows });
      ids.push(made.table.id);
    }
    const db = join(ctx.dir, `far-tables-${ms}.duckdb`);
    const synced = await tds(ctx, ['sync', ...ids, '--db', db, '--json'], { probe: `far-tables-${ms}` });
    mustSucceed(synced, `tds sync of ${TABLES} tables at ${ms} ms`);
    /** @type {{ tables: Array<{ inserted: number, complete: boolean }> }} */
    const summary = JSON.parse(synced.stdout);
    const log = (await requestLog(emu)).filter((entry) => entry.at >= synced.startedAt);
    const byTable = ids.map((id) => log.filter((entry) => entry.path.includes(`/tables/${id}/`)).length);
    const chain = Math.max(...byTable) + log.filter((entry) => !ids.some((id) => entry.path.includes(`/tables/${id}/`))).length;
    const throttled = log.filter((entry) => entry.status === 429).length;
    loopbackMs ??= ms === 0 ? synced.ms : undefined;
    console.log(
      `tds sync of ${TABLES} tables at ${ms} ms round trip: ${seconds(synced.ms)} wall, CPU ${synced.cpuSeconds.toFixed(1)} s; ` +
        `${log.length} requests, the longest chain ${chain}, ${throttled} answered 429` +
        (loopbackMs !== undefined && ms > 0 ? `; ${(synced.ms / loopbackMs).toFixed(2)}x loopback` : ''),
    );
    const inserted = summary.tables.reduce((sum, table) => sum + table.inserted, 0);
    ctx.check(
      summary.tables.every((table) => table.complete) && inserted === TABLES * TABLE_ROWS,
      `every row of every table mirrored at ${ms} ms`,
    );
    ctx.check(throttled === 0, `${throttled} 429s at ${ms} ms (target 0)`);
    if (loopbackMs !== undefined && ms > 0) {
      const allowed = loopbackMs + chain * ms;
      ctx.check(
        synced.ms <= allowed * TABLES_TARGET,
        `${(synced.ms / allowed).toFixed(2)}x loopback + ${chain} round trips (target <= ${TABLES_TARGET}x)`,
      );
    }
    await emu.stop();
    rmSync(db, { force: true });
  }
}

// @ts-check
// Phase 1 of the sync bench: the full sync of the generated table against its CSV export, rate limits off, in
// paired, alternating runs (export, first sync into a fresh file, … : --repeat N pairs, at least 5), judged by the
// median of the pairs' ratios (time, and CPU) and of the syncs' peak RSS.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetchJson, generatedTable } from '../emulator-api.mjs';
import { emulatorCpuMs, mb, median, n, pairedRuns, rate, repeats, seconds, spread, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, tds } from './context.mjs';
import { history } from './history.mjs';
import { FAST, PAGE, ROWS, TARGET } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('../emulator-api.mjs').Table} Table */
/** @typedef {import('../support.mjs').Emulator} Emulator */
/** @typedef {import('../tds-child.mjs').TdsRun} TdsRun */

const PAIRS = repeats(5);

/**
 * The full sync against the CSV export of the same table, then the history passes (1b) on the same emulator and
 * mirror; the emulator's state is saved on stop for phase 2.
 * @param {SyncContext} ctx
 */
export async function fullSync(ctx) {
  console.log(
    `\n1. full sync of ${n(ROWS)} rows, rate limits off, ${PAIRS} pairs. Targets: sync time and CPU <= ${TARGET.syncVsExport}x the CSV export's ` +
      `(medians); sync peak RSS <= ${TARGET.syncPeakMb} MB (median)`,
  );
  const loadStart = performance.now();
  const fast = await startEmulator(['--no-rate-limits', '--rows', String(ROWS), '--data', ctx.stateFile], ctx.emulators);
  const table = await generatedTable(fast);
  console.log(`emulator child: ${n(table.rowCount)} rows ready in ${seconds(performance.now() - loadStart)}`);
  await warmUp(fast, table);

  const csv = join(ctx.dir, 'export.csv');
  /** @type {TdsRun[]} */
  const exports = [];
  /** @type {TdsRun[]} */
  const syncs = [];
  /** @type {number[]} the rows inserted by a sync that was not a complete first sync of every row */
  const incomplete = [];
  const pairs = await pairedRuns({
    a: {
      name: 'CSV export',
      run: async () => {
        const emuCpu = emulatorCpuMs(fast);
        const exported = await tds(ctx, ['rows', table.id, '--format', 'csv', '-o', csv], { env: FAST, probe: 'export' });
        mustSucceed(exported, 'tds rows --format csv');
        console.log(
          `   tds rows ${table.name} --format csv -o export.csv: ${seconds(exported.ms)} = ${rate(ROWS, exported.ms)}, ` +
            `${(statSync(csv).size / 1e6).toFixed(0)} MB written, peak RSS ${mb(exported.peakKb)}; ` +
            `CPU: tds ${exported.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - emuCpu)}`,
        );
        rmSync(csv, { force: true });
        exports.push(exported);
        return exported.ms;
      },
    },
    b: {
      name: 'first sync',
      run: async () => {
        // each a first sync, into a fresh file (the last one is the mirror the phases after this one use)
        for (const file of [ctx.db, `${ctx.db}.wal`]) rmSync(file, { force: true });
        const emuCpu = emulatorCpuMs(fast);
        const synced = await tds(ctx, ['sync', table.id, '--db', ctx.db, '--json'], { env: FAST, probe: 'sync' });
        mustSucceed(synced, 'tds sync (full)');
        const result = onlyTable(synced);
        console.log(
          `   tds sync ${table.name} --db mirror.duckdb (fresh file): ${seconds(synced.ms)} = ${rate(ROWS, synced.ms)}; ` +
            `${result.mode}, ${n(result.requests)} requests, ${n(result.inserted)} inserted, sync's own figure ${result.seconds} s; ` +
            `mirror ${(statSync(ctx.db).size / 1e6).toFixed(0)} MB, peak RSS ${mb(synced.peakKb)}; ` +
            `CPU: tds ${synced.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - emuCpu)}; ${synced.memory}`,
        );
        if (!(result.mode === 'full' && result.complete && result.inserted === table.rowCount)) incomplete.push(result.inserted);
        syncs.push(synced);
        return synced.ms;
      },
    },
    pairs: PAIRS,
  });
  const cpuRatios = syncs.map((synced, i) => synced.cpuSeconds / (exports[i]?.cpuSeconds ?? Number.NaN));
  console.log(
    `   CPU: CSV export ${spread(exports.map((run) => run.cpuSeconds * 1000))}, first sync ${spread(syncs.map((run) => run.cpuSeconds * 1000))}; ` +
      `sync / export ${spread(cpuRatios, 'x', 2)}`,
  );
  ctx.check(
    incomplete.length === 0,
    `every row mirrored by each sync (${n(table.rowCount)}${incomplete.length > 0 ? `; not by ${incomplete.length}: ${incomplete.map(n).join(', ')} inserted` : ''})`,
  );
  const ratio = median(pairs.ratios);
  ctx.check(
    ratio <= TARGET.syncVsExport,
    `sync time ${ratio.toFixed(2)}x the CSV export (median of ${PAIRS} pairs; target <= ${TARGET.syncVsExport}x)`,
  );
  const cpuRatio = median(cpuRatios);
  ctx.check(
    cpuRatio <= TARGET.syncVsExport,
    `sync CPU ${cpuRatio.toFixed(2)}x the CSV export's (median of ${PAIRS} pairs; target <= ${TARGET.syncVsExport}x)`,
  );
  const peakKb = median(syncs.map((run) => run.peakKb));
  ctx.check(
    peakKb <= TARGET.syncPeakMb * 1024,
    `sync peak RSS ${mb(peakKb)} (median; target <= ${TARGET.syncPeakMb} MB); last run: ${syncs.at(-1)?.memory ?? ''}`,
  );
  await history(ctx, { emu: fast, table });
  await fast.stop(); // saves --data for phase 2
}

/**
 * Reads 50 pages, so the emulator's code is warm before the timed runs (none of them is logged as a run).
 * @param {Emulator} emu
 * @param {Table} table
 */
async function warmUp(emu, table) {
  /** @type {string | null} */
  let cursor = null;
  for (let page = 0; page < 50; page += 1) {
    /** @type {{ nextCursor: string | null }} */
    const body = await fetchJson(
      emu,
      'GET',
      `/v1/tables/${table.id}/rows?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    cursor = body.nextCursor;
    if (cursor === null) break;
  }
}

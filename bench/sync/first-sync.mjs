// @ts-check
// Phase 1 of the sync bench: the full sync of the generated table against its CSV export, rate limits off.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetchJson, generatedTable, requestLog } from '../emulator-api.mjs';
import { emulatorCpuMs, mb, n, rate, seconds, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, tds } from './context.mjs';
import { history } from './history.mjs';
import { FAST, PAGE, PROGRESS_MS, ROWS, TARGET } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('../emulator-api.mjs').Table} Table */
/** @typedef {import('../support.mjs').Emulator} Emulator */

/**
 * The full sync against the CSV export of the same table, then the history passes (1b) on the same emulator and
 * mirror; the emulator's state is saved on stop for phase 2.
 * @param {SyncContext} ctx
 */
export async function fullSync(ctx) {
  console.log(
    `\n1. full sync of ${n(ROWS)} rows, rate limits off. Targets: sync time and CPU <= ${TARGET.syncVsExport}x the CSV export's; ` +
      `sync peak RSS <= ${TARGET.syncPeakMb} MB`,
  );
  const loadStart = performance.now();
  const fast = await startEmulator(['--no-rate-limits', '--rows', String(ROWS), '--data', ctx.stateFile], ctx.emulators);
  const table = await generatedTable(fast);
  console.log(`emulator child: ${n(table.rowCount)} rows ready in ${seconds(performance.now() - loadStart)}`);
  await warmUp(fast, table);

  const csv = join(ctx.dir, 'export.csv');
  const exportEmuCpu = emulatorCpuMs(fast);
  const exported = await tds(ctx, ['rows', table.id, '--format', 'csv', '-o', csv], { env: FAST, probe: 'export' });
  mustSucceed(exported, 'tds rows --format csv');
  console.log(
    `tds rows ${table.name} --format csv -o export.csv: ${seconds(exported.ms)} = ${rate(ROWS, exported.ms)}, ` +
      `${(statSync(csv).size / 1e6).toFixed(0)} MB written, peak RSS ${mb(exported.peakKb)}; ` +
      `CPU: tds ${exported.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - exportEmuCpu)}`,
  );
  rmSync(csv, { force: true });

  const syncEmuCpu = emulatorCpuMs(fast);
  const progress = startProgress(fast);
  const synced = await tds(ctx, ['sync', table.id, '--db', ctx.db, '--json'], { env: FAST, probe: 'sync' }).finally(progress.stop);
  mustSucceed(synced, 'tds sync (full)');
  const result = onlyTable(synced);
  console.log(
    `tds sync ${table.name} --db mirror.duckdb (fresh file): ${seconds(synced.ms)} = ${rate(ROWS, synced.ms)}; ` +
      `${result.mode}, ${n(result.requests)} requests, ${n(result.inserted)} inserted, sync's own figure ${result.seconds} s; ` +
      `mirror ${(statSync(ctx.db).size / 1e6).toFixed(0)} MB, peak RSS ${mb(synced.peakKb)}; ` +
      `CPU: tds ${synced.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - syncEmuCpu)}`,
  );
  ctx.check(
    result.mode === 'full' && result.complete && result.inserted === table.rowCount,
    `every row mirrored (${n(result.inserted)} inserted)`,
  );
  const ratio = synced.ms / exported.ms;
  ctx.check(ratio <= TARGET.syncVsExport, `sync time ${ratio.toFixed(2)}x the CSV export (target <= ${TARGET.syncVsExport}x)`);
  const cpuRatio = synced.cpuSeconds / exported.cpuSeconds;
  ctx.check(cpuRatio <= TARGET.syncVsExport, `sync CPU ${cpuRatio.toFixed(2)}x the CSV export's (target <= ${TARGET.syncVsExport}x)`);
  ctx.check(
    synced.peakKb <= TARGET.syncPeakMb * 1024,
    `sync peak RSS ${mb(synced.peakKb)} (target <= ${TARGET.syncPeakMb} MB); ${synced.memory}`,
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

/**
 * While the full sync runs, a line every PROGRESS_MS: its row requests so far (from the emulator's log).
 * @param {Emulator} emu
 */
function startProgress(emu) {
  const started = Date.now();
  const pages = Math.ceil(ROWS / PAGE);
  const timer = setInterval(() => {
    requestLog(emu)
      .then((log) => {
        const done = log.filter((entry) => entry.bucket === 'rows' && entry.at >= started).length;
        console.log(
          `   … sync running ${seconds(Date.now() - started)}: ${n(done)} of ${n(pages)} pages requested (${((done / pages) * 100).toFixed(0)}%)`,
        );
      })
      .catch(() => undefined);
  }, PROGRESS_MS);
  return { stop: () => clearInterval(timer) };
}

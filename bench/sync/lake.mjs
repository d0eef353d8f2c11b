// @ts-check
// Phase 1c of the sync bench: --lake. On a fresh emulator from phase 1's state (rate limits off), the full sync of
// the generated table into a new mirror without --lake and into another with it (same run, same emulator), the
// lake's size against the CSV export of the same rows, then ADDED new rows synced into both mirrors.
// The two full syncs in paired, alternating runs (--repeat N pairs, at least 5), each into a fresh file.
// Targets: the sync with --lake <= 1.3x the one without (median), peak RSS <= 250 MB (median); the lake <= 0.5x the CSV;
// the incremental sync with --lake writes one partition of the ADDED rows in <= 1 s more than the one without.
import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { addRows, generatedTable } from '../emulator-api.mjs';
import { mb, median, n, pairedRuns, repeats, seconds, startEmulator } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, tds } from './context.mjs';
import { ADDED, FAST, ROWS } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('../tds-child.mjs').TdsRun} TdsRun */

const PAIRS = repeats(5);

const TARGET = { lakeVsPlain: 1.3, peakMb: 250, lakeVsCsv: 0.5, incrementalExtraMs: 1000 };

/** @param {string} folder */
function folderBytes(folder) {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** @param {SyncContext} ctx */
export async function lakeSync(ctx) {
  console.log(
    `\n1c. --lake: full sync of ${n(ROWS)} rows with and without it, rate limits off, ${PAIRS} pairs. Targets: <= ${TARGET.lakeVsPlain}x (median), ` +
      `peak RSS <= ${TARGET.peakMb} MB (median); lake <= ${TARGET.lakeVsCsv}x the CSV; ${n(ADDED)} new rows: <= ${TARGET.incrementalExtraMs} ms more`,
  );
  // a copy of phase 1's state: the rows added here stay out of the state phase 2 starts from
  const state = join(ctx.dir, 'lake-emulator-state.json');
  copyFileSync(ctx.stateFile, state);
  const fast = await startEmulator(['--no-rate-limits', '--data', state], ctx.emulators);
  const table = await generatedTable(fast);
  const plainDb = join(ctx.dir, 'plain.duckdb');
  const lakeDb = join(ctx.dir, 'lake.duckdb');
  const lake = join(ctx.dir, 'lake');
  const csv = join(ctx.dir, 'lake-export.csv');
  try {
    const exported = await tds(ctx, ['rows', table.id, '--format', 'csv', '-o', csv], { env: FAST });
    mustSucceed(exported, 'tds rows --format csv');
    const csvBytes = statSync(csv).size;
    rmSync(csv, { force: true });
    /** @type {TdsRun[]} */
    const plainRuns = [];
    /** @type {TdsRun[]} */
    const lakeRuns = [];
    // each a first sync into a fresh file (and a fresh lake); the last ones are synced again below
    const fresh = (/** @type {string[]} */ paths) => {
      for (const path of paths) rmSync(path, { recursive: true, force: true });
    };
    const pairs = await pairedRuns({
      a: {
        name: 'sync without --lake',
        run: async () => {
          fresh([plainDb, `${plainDb}.wal`]);
          const plain = await tds(ctx, ['sync', table.id, '--db', plainDb, '--json'], { env: FAST, probe: 'sync-plain' });
          mustSucceed(plain, 'tds sync (no lake)');
          console.log(`   without --lake: ${seconds(plain.ms)} (CPU ${plain.cpuSeconds.toFixed(1)} s), peak RSS ${mb(plain.peakKb)}`);
          plainRuns.push(plain);
          return plain.ms;
        },
      },
      b: {
        name: 'sync --lake',
        run: async () => {
          fresh([lakeDb, `${lakeDb}.wal`, lake]);
          const withLake = await tds(ctx, ['sync', table.id, '--db', lakeDb, '--lake', lake, '--json'], { env: FAST, probe: 'sync-lake' });
          mustSucceed(withLake, 'tds sync --lake');
          console.log(`   with --lake: ${seconds(withLake.ms)} (CPU ${withLake.cpuSeconds.toFixed(1)} s), peak RSS ${mb(withLake.peakKb)}`);
          lakeRuns.push(withLake);
          return withLake.ms;
        },
      },
      pairs: PAIRS,
    });
    const lakeBytes = folderBytes(lake);
    console.log(`   lake ${(lakeBytes / 1e6).toFixed(1)} MB, CSV ${(csvBytes / 1e6).toFixed(1)} MB`);
    const ratio = median(pairs.ratios);
    ctx.check(
      ratio <= TARGET.lakeVsPlain,
      `sync with --lake ${ratio.toFixed(2)}x without (median of ${PAIRS} pairs; target <= ${TARGET.lakeVsPlain}x)`,
    );
    const peakKb = median(lakeRuns.map((run) => run.peakKb));
    ctx.check(peakKb <= TARGET.peakMb * 1024, `sync --lake peak RSS ${mb(peakKb)} (median; target <= ${TARGET.peakMb} MB)`);
    const sizeRatio = lakeBytes / csvBytes;
    ctx.check(sizeRatio <= TARGET.lakeVsCsv, `lake ${sizeRatio.toFixed(2)}x the CSV (target <= ${TARGET.lakeVsCsv}x)`);

    await addRows(fast, table, ADDED);
    const plainNext = await tds(ctx, ['sync', '--db', plainDb, '--json'], { env: FAST });
    mustSucceed(plainNext, 'tds sync (incremental, no lake)');
    const lakeNext = await tds(ctx, ['sync', '--db', lakeDb, '--lake', lake, '--json'], { env: FAST });
    mustSucceed(lakeNext, 'tds sync --lake (incremental)');
    const partitions = readdirSync(join(lake, 'generated', 'changes')).filter((name) => name.startsWith('sync_id='));
    const inserted = onlyTable(lakeNext).inserted;
    console.log(
      `incremental, ${n(inserted)} rows: without --lake ${seconds(plainNext.ms)}, with ${seconds(lakeNext.ms)}; ${partitions.length} partitions`,
    );
    ctx.check(partitions.length === 2 && inserted === ADDED, `one new partition of the ${n(ADDED)} rows`);
    const extra = lakeNext.ms - plainNext.ms;
    ctx.check(extra <= TARGET.incrementalExtraMs, `--lake added ${Math.round(extra)} ms (target <= ${TARGET.incrementalExtraMs} ms)`);
  } finally {
    await fast.stop();
    for (const path of [plainDb, lakeDb, lake, state]) rmSync(path, { recursive: true, force: true });
  }
}

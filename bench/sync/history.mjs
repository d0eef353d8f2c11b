// @ts-check
// Phase 1b of the sync bench: a --full pass over the mirror with no row changed, then with CHANGED rows changed
// (each replaced version moves into generated__history); the two compared in paired, alternating runs (--repeat N
// pairs, at least 5: each pass over a copy of the mirror as it was before the change, or after it); then `tds diff`
// of the changed rows.
import { copyFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetchJson } from '../emulator-api.mjs';
import { mb, median, n, pairedRuns, repeats, seconds } from '../support.mjs';
import { mustSucceed } from '../tds-child.mjs';
import { onlyTable, scalar, sql, tds } from './context.mjs';
import { CHANGED, FAST, TARGET } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('../emulator-api.mjs').Table} Table */
/** @typedef {import('../support.mjs').Emulator} Emulator */
/** @typedef {import('../tds-child.mjs').TdsRun} TdsRun */

const PAIRS = repeats(5);

/**
 * @param {SyncContext} ctx
 * @param {{ emu: Emulator, table: Table }} on the emulator and table of phase 1 (rate limits off)
 */
export async function history(ctx, { emu, table }) {
  console.log(
    `\n1b. history: --full with no row changed, then with ${n(CHANGED)} rows changed (admin route), rate limits off, ${PAIRS} pairs. Targets: ` +
      `changed pass <= ${TARGET.changedVsUnchanged}x the unchanged one (median), peak RSS <= ${TARGET.syncPeakMb} MB (medians), mirror file <= ${TARGET.fileGrowth}x; ` +
      `no history from the unchanged pass; tds diff <= ${TARGET.diffSeconds} s and <= ${TARGET.diffPeakMb} MB`,
  );
  const { db } = ctx;
  const sizeBefore = statSync(db).size;
  const unchanged = await fullPass(ctx, table, db, 'full-unchanged');
  const sizeUnchanged = statSync(db).size;
  const versionsAfterUnchanged = await scalar(ctx, 'SELECT count(*) FROM generated__history');
  console.log(
    `tds sync --full, nothing changed: ${seconds(unchanged.ms)}, peak RSS ${mb(unchanged.peakKb)}; ${onlyTable(unchanged).updated} updated; ` +
      `history ${n(versionsAfterUnchanged)} versions; mirror ${(sizeBefore / 1e6).toFixed(0)} MB -> ${(sizeUnchanged / 1e6).toFixed(0)} MB`,
  );
  ctx.check(versionsAfterUnchanged === 0, `the unchanged pass adds no version (${n(versionsAfterUnchanged)} in the history)`);
  // the mirror as it is before the change: each changed pass of the pairs starts from a copy of it
  const before = join(ctx.dir, 'before-change.duckdb');
  copyFileSync(db, before);

  const changeStart = performance.now();
  const ids = (await sql(ctx, `SELECT "_id" FROM generated USING SAMPLE ${CHANGED} ROWS (reservoir, 7)`)).map((row) => row[0] ?? '');
  await changeRows(emu, table, ids);
  console.log(`${n(ids.length)} rows changed through the admin route in ${seconds(performance.now() - changeStart)}`);

  const changed = await fullPass(ctx, table, db, 'full-changed');
  const sizeChanged = statSync(db).size;
  const versions = await scalar(ctx, 'SELECT count(*) FROM generated__history');
  console.log(
    `tds sync --full, ${n(CHANGED)} changed: ${seconds(changed.ms)}, peak RSS ${mb(changed.peakKb)}; ${onlyTable(changed).updated} updated; ` +
      `history ${n(versions)} versions; mirror ${(sizeUnchanged / 1e6).toFixed(0)} MB -> ${(sizeChanged / 1e6).toFixed(0)} MB; ${changed.memory}`,
  );
  ctx.check(versions === ids.length, `every replaced version in the history (${n(versions)})`);
  const growth = sizeChanged / sizeUnchanged;
  ctx.check(growth <= TARGET.fileGrowth, `mirror file ${growth.toFixed(2)}x its size before (target <= ${TARGET.fileGrowth}x)`);

  // Paired: --full over a copy of the mirror as the changed pass left it (nothing changed since), and over a
  // copy of the mirror before the change (CHANGED rows to move into the history)
  const after = join(ctx.dir, 'after-change.duckdb');
  copyFileSync(db, after);
  const work = join(ctx.dir, 'pass.duckdb');
  /** @type {TdsRun[]} */
  const unchangedRuns = [];
  /** @type {TdsRun[]} */
  const changedRuns = [];
  /** @type {string[]} */
  const wrong = [];
  const pass = async (/** @type {string} */ from, /** @type {number} */ expected, /** @type {TdsRun[]} */ runs) => {
    for (const file of [work, `${work}.wal`]) rmSync(file, { force: true });
    copyFileSync(from, work);
    const run = await fullPass(ctx, table, work, expected === 0 ? 'full-unchanged' : 'full-changed');
    const { updated } = onlyTable(run);
    console.log(
      `   --full, ${n(expected)} changed: ${seconds(run.ms)}, CPU ${run.cpuSeconds.toFixed(1)} s, peak RSS ${mb(run.peakKb)}; ${n(updated)} updated`,
    );
    if (updated !== expected) wrong.push(`${n(updated)} updated where ${n(expected)} changed`);
    runs.push(run);
    return run.ms;
  };
  const pairs = await pairedRuns({
    a: { name: '--full unchanged', run: () => pass(after, 0, unchangedRuns) },
    b: { name: `--full ${n(CHANGED)} changed`, run: () => pass(before, ids.length, changedRuns) },
    pairs: PAIRS,
  });
  for (const file of [work, `${work}.wal`, before, after]) rmSync(file, { force: true });
  ctx.check(wrong.length === 0, `each pass updated the rows changed${wrong.length > 0 ? `: not so in ${wrong.join('; ')}` : ''}`);
  const ratio = median(pairs.ratios);
  ctx.check(
    ratio <= TARGET.changedVsUnchanged,
    `changed pass ${ratio.toFixed(2)}x the unchanged one (median of ${PAIRS} pairs; target <= ${TARGET.changedVsUnchanged}x)`,
  );
  for (const [what, runs] of /** @type {const} */ ([
    ['unchanged', unchangedRuns],
    ['changed', changedRuns],
  ])) {
    const peakKb = median(runs.map((run) => run.peakKb));
    ctx.check(
      peakKb <= TARGET.syncPeakMb * 1024,
      `${what} pass peak RSS ${mb(peakKb)} (median; target <= ${TARGET.syncPeakMb} MB); last run: ${runs.at(-1)?.memory ?? ''}`,
    );
  }
  await diff(ctx, { table, changed: ids.length });
}

/**
 * `tds sync TABLE --db DB --full --json` on the emulator of phase 1, which must succeed.
 * @param {SyncContext} ctx
 * @param {Table} table
 * @param {string} db
 * @param {string} probe
 */
async function fullPass(ctx, table, db, probe) {
  const run = await tds(ctx, ['sync', table.id, '--db', db, '--full', '--json'], { env: FAST, probe });
  mustSucceed(run, `tds sync --full (${probe})`);
  return run;
}

/**
 * `tds diff` of the changed rows: one record each, fast and small.
 * @param {SyncContext} ctx
 * @param {{ table: Table, changed: number }} of the table whose `changed` rows were changed
 */
async function diff(ctx, { table, changed }) {
  const out = join(ctx.dir, 'diff.ndjson');
  const diffed = await tds(ctx, ['diff', table.id, '--db', ctx.db, '-o', out], { probe: 'diff' });
  mustSucceed(diffed, 'tds diff');
  const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
  console.log(
    `tds diff Generated -o diff.ndjson: ${seconds(diffed.ms)}, peak RSS ${mb(diffed.peakKb)}, ${n(records)} records; ${diffed.memory}`,
  );
  rmSync(out, { force: true });
  ctx.check(records === changed, `one record per changed row (${n(records)})`);
  ctx.check(diffed.ms <= TARGET.diffSeconds * 1000, `tds diff ${seconds(diffed.ms)} (target <= ${TARGET.diffSeconds} s)`);
  ctx.check(diffed.peakKb <= TARGET.diffPeakMb * 1024, `tds diff peak RSS ${mb(diffed.peakKb)} (target <= ${TARGET.diffPeakMb} MB)`);
}

/**
 * Changes the Amount of each row (admin PATCH, 32 requests at a time).
 * @param {Emulator} emu
 * @param {{ id: string }} table
 * @param {string[]} ids
 */
export async function changeRows(emu, table, ids) {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      await fetchJson(emu, 'PATCH', `/_emulator/tables/${table.id}/rows/${id}`, { cells: { Amount: -1 - next } });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

// @ts-check
// What the phases of the sync bench share: one temporary folder with the mirror and the emulator's saved
// state, the children to end whatever happens, the verdict, and tds runs against the latest emulator.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verdict } from '../support.mjs';
import { mustSucceed, runTds, tdsEnv } from '../tds-child.mjs';

/** @typedef {import('../support.mjs').Emulator} Emulator */
/** @typedef {import('../tds-child.mjs').TdsRun} TdsRun */
/** @typedef {import('#dist/mirror/sync-report.js').SyncSummary} SyncSummary */
/**
 * dir: the bench's folder (config, probe reports, files written); db: the mirror; stateFile: the emulator's --data;
 * emulators: every one started, stopped at the end; cleanups: children to end if the bench fails midway.
 * @typedef {{ dir: string, db: string, stateFile: string, emulators: Emulator[], cleanups: Array<() => void>, check: (ok: boolean, text: string) => void, missed: () => boolean }} SyncContext
 */

/** @returns {SyncContext} */
export function createContext() {
  const dir = mkdtempSync(join(tmpdir(), 'tds-sync-bench-'));
  const { check, missed } = verdict();
  return { dir, db: join(dir, 'mirror.duckdb'), stateFile: join(dir, 'emulator-state.json'), emulators: [], cleanups: [], check, missed };
}

/**
 * The environment of a tds child against the latest emulator; TDS_RATE_SCALE only when `extra` has it.
 * @param {SyncContext} ctx
 * @param {Record<string, string>} [extra]
 */
export function syncEnv(ctx, extra = {}) {
  return tdsEnv({ dir: ctx.dir, emulator: ctx.emulators.at(-1), extra });
}

/**
 * Runs `tds ARGS` against the latest emulator, sampling its peak RSS until it exits.
 * @param {SyncContext} ctx
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, probe?: string }} options probe: name of the memory-probe report
 */
export function tds(ctx, args, { env = {}, probe }) {
  return runTds(args, { env: syncEnv(ctx, env), dir: ctx.dir, probe });
}

/**
 * A query's rows through `tds sql --format csv` (header dropped; fields split at commas: for IDs and numbers).
 * @param {SyncContext} ctx
 * @param {string} query
 * @param {string} [db] the mirror (ctx.db unless given)
 * @returns {Promise<string[][]>}
 */
export async function sql(ctx, query, db = ctx.db) {
  const run = await tds(ctx, ['sql', query, '--db', db, '--format', 'csv'], {});
  mustSucceed(run, 'tds sql');
  return run.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
}

/**
 * The first field of a query's first row, as a number.
 * @param {SyncContext} ctx
 * @param {string} query
 */
export async function scalar(ctx, query) {
  return Number((await sql(ctx, query))[0]?.[0]);
}

/**
 * The one table of a `tds sync --json` summary.
 * @param {TdsRun} run
 */
export function onlyTable(run) {
  /** @type {SyncSummary} */
  const summary = JSON.parse(run.stdout);
  const table = summary.tables[0];
  if (!table || summary.tables.length !== 1) throw new Error(`expected one table in the sync summary: ${run.stdout}`);
  return table;
}

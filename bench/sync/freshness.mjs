// @ts-check
// Phase 4 of the sync bench (issue 30), at a rate scale (the real ratios, FRESH_SCALE times faster): 10 tables
// followed by `tds sync --follow`. (a) An idle round costs 0 row requests and 1 listing, whatever the number
// of tables. (b) Changes to old rows (edits, re-runs, deletions) at random moments: each in `--changes`
// within 1.2 x --max-stale of when it was made; row requests in any minute <= s x 60 + 1.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchJson, requestLog } from '../emulator-api.mjs';
import { TDS_BIN, load, n, seconds, startEmulator } from '../support.mjs';
import { syncEnv, tds } from './context.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */

const SCALE = Number(process.env.BENCH_FRESH_SCALE ?? 20);
const TABLES = 10;
const ROWS = Number(process.env.BENCH_FRESH_ROWS ?? 2_000);
const CHANGES = Number(process.env.BENCH_FRESH_CHANGES ?? 30);
const MAX_STALE_MIN = Number(process.env.BENCH_FRESH_MAX_STALE_MIN ?? 20);
const SHARE = 0.5;
const EVERY_SECONDS = 10;
const DAY = 86_400_000;

/** @param {SyncContext} ctx */
export async function freshness(ctx) {
  const perTable = Math.ceil(ROWS / TABLES);
  const pages = TABLES * Math.ceil(perTable / 100);
  const maxStaleMs = MAX_STALE_MIN * 60_000;
  console.log(
    `\n4. freshness at rate scale ${SCALE} (service durations below): ${TABLES} tables of ${n(perTable)} old rows (${pages} pages), ` +
      `tds sync --follow --every ${EVERY_SECONDS}. Targets: an idle round 0 row requests + 1 listing; ${CHANGES} changes to old rows ` +
      `each in --changes within 1.2 x --max-stale ${MAX_STALE_MIN}m; row requests in any minute <= ${SHARE * 60 + 1}. uptime: ${load()}`,
  );
  const emu = await startEmulator(['--rate-scale', String(SCALE), '--action-delay', '0'], ctx.emulators);
  const env = { TDS_RATE_SCALE: String(SCALE), TDS_DB: `${ctx.dir}/fresh.duckdb` };
  const tables = [];
  for (let t = 0; t < TABLES; t += 1) tables.push(await oldTable(emu, `Fresh ${t}`, perTable));
  await tds(ctx, ['sync', ...tables.map((table) => table.id)], { env });

  // (a) idle rounds, after the first round (which reads each table's newest page)
  const idle = follow(ctx, ['--max-stale', 'off', '--json'], env);
  const firstAt = await idle.firstLine;
  await sleep((6 * EVERY_SECONDS * 1000) / SCALE);
  await idle.stop();
  const idleLog = (await requestLog(emu)).filter((entry) => entry.at > firstAt);
  const listings = idleLog.filter((entry) => entry.bucket === 'metadata').length;
  const rowRequests = idleLog.filter((entry) => entry.bucket === 'rows').length;
  console.log(`(a) idle: ${listings} rounds, ${listings} metadata requests (listings), ${rowRequests} row requests`);
  ctx.check(
    rowRequests === 0 && listings >= 5,
    `(a) an idle round of ${TABLES} tables: 0 row requests and 1 listing (${rowRequests} row requests in ${listings} rounds)`,
  );

  // (b) changes to old rows while --follow verifies
  const since = (await requestLog(emu)).length;
  const verifying = follow(ctx, ['--max-stale', `${MAX_STALE_MIN}m`, '--max-share', String(SHARE), '--changes'], env);
  await sleep(5_000);
  /** @type {Array<{ id: string, kind: string, at: number }>} */
  const made = [];
  const spanMs = maxStaleMs / SCALE;
  for (let k = 0; k < CHANGES; k += 1) {
    await sleep(Math.random() * ((2 * spanMs) / CHANGES));
    const table = /** @type {{ id: string, ids: string[] }} */ (tables[k % TABLES]);
    const id = /** @type {string} */ (table.ids.splice(Math.floor(Math.random() * table.ids.length), 1)[0]);
    const kind = /** @type {string} */ (['edit', 'rerun', 'delete'][k % 3]);
    if (kind === 'edit') await fetchJson(emu, 'PATCH', `/_emulator/tables/${table.id}/rows/${id}`, { cells: { Name: `Edited ${k}` } });
    else if (kind === 'rerun') await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/actions/rerun`, { rows: [id] });
    else await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/rows/delete`, { ids: [id] });
    made.push({ id, kind, at: Date.now() });
  }
  const deadline = Date.now() + (1.5 * maxStaleMs) / SCALE;
  while (Date.now() < deadline && made.some((change) => !verifying.seen.has(change.id))) await sleep(200);
  await verifying.stop();
  const lags = made.map((change) => ((verifying.seen.get(change.id) ?? Infinity) - change.at) * SCALE);
  const worst = Math.max(...lags);
  const missing = lags.filter((lag) => lag === Infinity).length;
  const reads = (await requestLog(emu)).slice(since).filter((entry) => entry.bucket === 'rows');
  const minute = 60_000 / SCALE;
  const busiest = Math.max(
    0,
    ...reads.map((entry) => reads.filter((other) => other.at >= entry.at && other.at < entry.at + minute).length),
  );
  console.log(
    `(b) ${made.length} changes: in --changes after ${seconds(Math.min(...lags))} .. ${seconds(worst)} (service time), ${missing} missing; ` +
      `${reads.length} row requests, at most ${busiest} in a minute; uptime: ${load()}`,
  );
  ctx.check(missing === 0 && worst <= 1.2 * maxStaleMs, `(b) every change in --changes within 1.2 x --max-stale (worst ${seconds(worst)})`);
  ctx.check(busiest <= SHARE * 60 + 1, `(b) row requests in any minute <= ${SHARE * 60 + 1} (${busiest})`);
  await emu.stop();
}

/**
 * A table of old rows (created 10 days ago and before) with an action column, through the admin routes.
 * @param {import('../support.mjs').Emulator} emu
 * @param {string} name
 * @param {number} count
 */
async function oldTable(emu, name, count) {
  /** @type {{ table: { id: string } }} */
  const made = await fetchJson(emu, 'POST', '/_emulator/tables', {
    workspace: 'Sales',
    name,
    fields: [
      { label: 'Name', type: 'text' },
      { label: 'Email', type: 'email' },
      { label: 'Enrich', type: 'action', action: { from: 'Email', derive: 'domain' } },
    ],
  });
  const rows = Array.from({ length: count }, (_, k) => ({
    cells: { Name: `Row ${k}`, Email: `u${k}@firm${k % 7}.example` },
    createdAt: new Date(Date.now() - 10 * DAY - k * 60_000).toISOString(),
  }));
  /** @type {{ rows: Array<{ id: string }> }} */
  const added = await fetchJson(emu, 'POST', `/_emulator/tables/${made.table.id}/rows`, { rows });
  return { id: made.table.id, ids: added.rows.map((row) => row.id) };
}

/**
 * `tds sync --follow --every EVERY_SECONDS ARGS` as a child: when each row ID first came in --changes.
 * @param {SyncContext} ctx
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function follow(ctx, args, env) {
  const child = spawn(process.execPath, [TDS_BIN, 'sync', '--follow', '--every', String(EVERY_SECONDS / SCALE), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: syncEnv(ctx, env),
    cwd: ctx.dir,
  });
  const kill = () => child.kill('SIGKILL');
  ctx.cleanups.push(kill);
  /** @type {Map<string, number>} */
  const seen = new Map();
  /** @type {(at: number) => void} */
  let first = () => undefined;
  /** @type {Promise<number>} */
  const firstLine = new Promise((resolve) => (first = resolve));
  createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
    first(Date.now());
    const id = /** @type {{ _id?: string }} */ (JSON.parse(line))._id;
    if (id && !seen.has(id)) seen.set(id, Date.now());
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    seen,
    /** when the first line came (--json: the first round's summary) */
    firstLine,
    async stop() {
      child.kill('SIGINT');
      await exited;
      ctx.cleanups.splice(ctx.cleanups.indexOf(kill), 1);
    },
  };
}

// @ts-check
// Phase 5 of the sync bench (issue 30), at a rate scale: the real ratios, FRESH_SCALE times faster (the emulator's
// windows and intake, the client's limiter and --max-stale; --every and the bench's waits divided by hand). 10 tables
// holding ROWS old rows in all, followed by `tds sync --follow --changes`; every duration printed is service time.
// (a) At --max-stale MAX_STALE_MIN (more than the share needs): CHANGES changes to old rows (edits, re-runs through
//     the emulator's re-run route, deletions) at seeded random moments over one --max-stale; each in --changes (so in
//     the mirror, whose commit comes first) within 1.2 x --max-stale; row requests in any minute <= s x 60 + 1.
// (b) At --max-stale SHARE_STALE_MIN, less than the share allows: each change within 1.2 x P / (60 s), and the
//     "too large for --max-stale" message said once.
// (c) Idle rounds with nothing changed: 0 row requests and 1 listing a round; then one row through the webhook, in
//     --changes within --every + the intake window (the emulator's quiet delay).
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createPrng } from '#dist/emulator/seed/prng.js';
import { fetchJson, requestLog } from '../emulator-api.mjs';
import { cpuMsOf, load, median, n, seconds, startEmulator } from '../support.mjs';
import { sql, tds } from './context.mjs';
import { startFollower } from './follower.mjs';
import { mustSucceed } from '../tds-child.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('../support.mjs').Emulator} Emulator */
/** @typedef {import('../emulator-api.mjs').LoggedRequest} LoggedRequest */
/** A followed table: its ID, mirror table, and the old rows no phase changed yet. @typedef {{ id: string, mirror: string, ids: string[] }} FreshTable */
/** One change the bench made: the row, its kind and when it was made (Date.now()). @typedef {{ table: FreshTable, id: string, kind: 'edit' | 'rerun' | 'delete', at: number }} Change */

export const FRESH_SCALE = Number(process.env.BENCH_FRESH_SCALE ?? 4);
const TABLES = 10;
const ROWS = Number(process.env.BENCH_FRESH_ROWS ?? 20_000);
const CHANGES = Number(process.env.BENCH_FRESH_CHANGES ?? 200);
const SHARE_CHANGES = Number(process.env.BENCH_FRESH_SHARE_CHANGES ?? CHANGES);
const MAX_STALE_MIN = Number(process.env.BENCH_FRESH_MAX_STALE_MIN ?? 10);
const SHARE_STALE_MIN = 2;
const SEED = Number(process.env.BENCH_FRESH_SEED ?? 1);
/** The cases to run, as letters: BENCH_FRESH_CASES=b runs (b) alone (at its own rate scale, say). */
const CASES = process.env.BENCH_FRESH_CASES ?? 'abc';
export const SHARE = 0.5;
export const EVERY_SECONDS = 10;
/** The emulator's webhook quiet delay (its default), in service ms. */
const INTAKE_MS = 5_000;
const MINUTE = 60_000;
/** The rate scale of the setup (tables made, first sync): no wait worth the name. */
const SETUP_SCALE = 1000;
/** The spacing of pages at the share: 60 row reads a minute, SHARE of them. */
const SHARE_PAGE_MS = MINUTE / (60 * SHARE);
/** The changes come at random moments over this part of the bound (the rest: the follower catching up). */
const SPAN = 0.5;
const DAY = 86_400_000;

/**
 * Leaves the state of the emulator in `fresh-state.json` and the mirror in `fresh.duckdb` for phase 6.
 * @param {SyncContext} ctx
 */
export async function freshness(ctx) {
  const scale = FRESH_SCALE;
  console.log(
    `\n5. freshness at rate scale ${scale} (durations: service time): ${TABLES} tables of ${n(ROWS / TABLES)} old rows, ` +
      `tds sync --follow --every ${EVERY_SECONDS} --max-share ${SHARE} --changes; seed ${SEED}. uptime: ${load()}`,
  );
  const tables = await freshTables(ctx);
  const emu = await startEmulator(['--rate-scale', String(scale), '--action-delay', '0', '--data', freshState(ctx)], ctx.emulators);
  const random = createPrng(SEED);

  const pages = await pagesOf(emu, tables);
  const maxStaleMs = MAX_STALE_MIN * MINUTE;
  const shareBoundMs = (pages / (60 * SHARE)) * MINUTE;
  console.log(`P = ${pages} pages; P / (60 s) = ${seconds(shareBoundMs)}`);
  if (CASES.includes('a'))
    await underChanges(ctx, emu, tables, random, {
      name: `(a) --max-stale ${MAX_STALE_MIN}m`,
      maxStale: `${MAX_STALE_MIN}m`,
      count: CHANGES,
      boundMs: maxStaleMs,
      pageMs: Math.max(SHARE_PAGE_MS, (0.9 * maxStaleMs) / pages),
      pages,
      tooLarge: 0,
    });
  if (CASES.includes('b'))
    await underChanges(ctx, emu, tables, random, {
      name: `(b) --max-stale ${SHARE_STALE_MIN}m (less than P / (60 s))`,
      maxStale: `${SHARE_STALE_MIN}m`,
      count: SHARE_CHANGES,
      boundMs: shareBoundMs,
      pageMs: SHARE_PAGE_MS,
      pages,
      tooLarge: 1,
    });
  if (CASES.includes('c')) await idleRounds(ctx, emu, tables);
  await emu.stop();
}

/**
 * The followed tables and their first sync, on an emulator without waits; the phases start another from its
 * saved state.
 * @param {SyncContext} ctx
 * @returns {Promise<FreshTable[]>}
 */
export async function freshTables(ctx) {
  const perTable = Math.ceil(ROWS / TABLES);
  const setup = await startEmulator(['--rate-scale', String(SETUP_SCALE), '--action-delay', '0', '--data', freshState(ctx)], ctx.emulators);
  /** @type {FreshTable[]} */
  const tables = [];
  for (let t = 0; t < TABLES; t += 1) tables.push(await oldTable(setup, `Fresh ${t}`, perTable));
  const first = await tds(ctx, ['sync', '--db', freshDb(ctx), ...tables.map((table) => table.id)], {
    env: { TDS_RATE_SCALE: String(SETUP_SCALE) },
  });
  mustSucceed(first, 'the first tds sync of the fresh tables');
  console.log(`first sync of ${n(perTable * TABLES)} rows: ${seconds(first.ms)} (real time, no limits); uptime: ${load()}`);
  await setup.stop();
  return tables;
}

/** @param {SyncContext} ctx */
export const freshState = (ctx) => join(ctx.dir, 'fresh-state.json');
/** @param {SyncContext} ctx */
export const freshDb = (ctx) => join(ctx.dir, 'fresh.duckdb');

/**
 * One follower under `count` changes at random moments over the first SPAN of a bound: each change's lag in
 * --changes against 1.2 x the bound, the row requests in any minute, the "too large" message said `tooLarge`
 * times, whether the follower kept the rate it planned (a page every `pageMs`); then the mirror.
 * @param {SyncContext} ctx
 * @param {Emulator} emu
 * @param {FreshTable[]} tables
 * @param {() => number} random
 * @param {{ name: string, maxStale: string, count: number, boundMs: number, pageMs: number, pages: number, tooLarge: number }} run
 */
async function underChanges(ctx, emu, tables, random, { name, maxStale, count, boundMs, pageMs, pages, tooLarge }) {
  const scale = FRESH_SCALE;
  console.log(
    `${name}: ${count} changes over ${seconds(SPAN * boundMs)}, a page planned every ${seconds(pageMs)}; ` +
      `target: each within 1.2 x ${seconds(boundMs)}. uptime: ${load()}`,
  );
  const follower = startFollower(ctx, {
    db: freshDb(ctx),
    everySeconds: EVERY_SECONDS / scale,
    args: ['--max-stale', maxStale, '--max-share', String(SHARE), '--changes'],
    env: { TDS_RATE_SCALE: String(scale) },
  });
  const made = await makeChanges(emu, tables, random, { count, spanMs: (SPAN * boundMs) / scale });
  const deadline = Date.now() + (1.5 * boundMs) / scale;
  while (Date.now() < deadline && made.some((one) => !seenAfter(follower.seen.get(one.id), one))) await sleep(100);
  const stoppedAt = Date.now();
  const cpu = cpuMsOf(follower.pid) ?? Number.NaN;
  const code = await follower.stop();
  const lags = made.map((one) => {
    const seen = follower.seen.get(one.id);
    return seen && seenAfter(seen, one) ? (seen.at - one.at) * scale : Infinity;
  });
  const missing = lags.filter((lag) => lag === Infinity).length;
  const wrong = made.filter((one) => {
    const seen = follower.seen.get(one.id);
    return seen && (one.kind === 'delete') !== (seen.change === 'deleted');
  }).length;
  const byKind = ['edit', 'rerun', 'delete']
    .map((kind) => {
      const of = lags.filter((_, k) => made[k]?.kind === kind);
      return `${kind}s ${of.length}: median ${seconds(median(of))}, worst ${seconds(Math.max(...of))}`;
    })
    .join('; ');
  const reads = (await requestLog(emu)).filter(
    (entry) => entry.bucket === 'rows' && entry.at >= follower.startedAt && entry.at <= stoppedAt,
  );
  const busiest = busiestWindow(reads, MINUTE / scale);
  const said = follower.stderr.filter((line) => line.includes('too large for --max-stale'));
  const minutes = ((stoppedAt - follower.startedAt) * scale) / MINUTE;
  // verification pages from the mirror (each a sync of mode verify, one row request); the rest the rounds' (their
  // summaries would miss a round that changed nothing, and count its schema reads)
  const since = new Date(follower.startedAt).toISOString();
  const verified = Number(
    (await sql(ctx, `SELECT count(*) FROM _tds_syncs WHERE mode = 'verify' AND started_at >= '${since}'`, freshDb(ctx)))[0]?.[0],
  );
  const rounds = reads.length - verified;
  const cycleMs = (pages / (verified / minutes)) * MINUTE;
  // the plan: a page every pageMs, or (P + R) share spacings when the rounds' R row requests in a pass leave less
  const roundsPart = (rounds / minutes / MINUTE) * SHARE_PAGE_MS;
  const plannedMs = Math.max(pages * pageMs, roundsPart >= 1 ? Infinity : (pages * SHARE_PAGE_MS) / (1 - roundsPart));
  const behind = cycleMs > 1.1 * plannedMs;
  console.log(
    `${name}: in --changes after ${seconds(Math.min(...lags))} .. ${seconds(Math.max(...lags))}; ${byKind}; ` +
      `${missing} missing, ${wrong} of the wrong kind; "too large" said ${said.length} time(s)${said[0] ? ` (${said[0]})` : ''}; exit ${code}`,
  );
  console.log(
    `${name}: ${reads.length} row requests in ${minutes.toFixed(1)} min (${rounds} by rounds, ${verified} verification pages: ` +
      `a pass over the ${pages} pages every ${seconds(cycleMs)}, ${seconds(plannedMs)} planned with the rounds' reads), at most ${busiest} in any minute, ` +
      `${reads.filter((entry) => entry.status === 429).length} answered 429; follower CPU ${seconds(cpu)} in ${seconds(stoppedAt - follower.startedAt)} ` +
      `real time${behind ? ' (BEHIND ITS SCHEDULE: a page takes it longer than this rate scale leaves)' : ''}. uptime: ${load()}`,
  );
  ctx.check(missing === 0 && wrong === 0, `${name}: every change in --changes, as its kind (${missing} missing, ${wrong} wrong)`);
  ctx.check(Math.max(...lags) <= 1.2 * boundMs, `${name}: worst ${seconds(Math.max(...lags))} <= 1.2 x ${seconds(boundMs)}`);
  ctx.check(busiest <= SHARE * 60 + 1, `${name}: row requests in any minute ${busiest} <= ${SHARE * 60 + 1}`);
  ctx.check(said.length === tooLarge, `${name}: "too large for --max-stale" said ${said.length} time(s), ${tooLarge} expected`);
  await checkMirror(ctx, made, name);
}

/**
 * `count` changes to old rows, a third of each kind, at seeded random moments over `spanMs` (real time) from now;
 * each row changed once.
 * @param {Emulator} emu
 * @param {FreshTable[]} tables
 * @param {() => number} random
 * @param {{ count: number, spanMs: number }} options
 * @returns {Promise<Change[]>}
 */
async function makeChanges(emu, tables, random, { count, spanMs }) {
  const began = Date.now();
  const moments = Array.from({ length: count }, () => random() * spanMs).sort((a, b) => a - b);
  const kinds = shuffle(
    Array.from({ length: count }, (_, k) => /** @type {Change['kind']} */ (['edit', 'rerun', 'delete'][k % 3])),
    random,
  );
  /** @type {Change[]} */
  const made = [];
  for (const [k, moment] of moments.entries()) {
    await sleep(Math.max(0, began + moment - Date.now()));
    const table = /** @type {FreshTable} */ (tables[Math.floor(random() * tables.length)]);
    const id = /** @type {string} */ (table.ids.splice(Math.floor(random() * table.ids.length), 1)[0]);
    made.push(await change(emu, { table, id, kind: /** @type {Change['kind']} */ (kinds[k]), at: 0 }, k));
  }
  return made;
}

/**
 * Makes one change on the emulator; `k` numbers the edit's new name.
 * @param {Emulator} emu
 * @param {Change} one
 * @param {number} k
 * @returns {Promise<Change>}
 */
async function change(emu, one, k) {
  const { table, id, kind } = one;
  if (kind === 'edit') await fetchJson(emu, 'PATCH', `/_emulator/tables/${table.id}/rows/${id}`, { cells: { Name: `Edited ${k}` } });
  else if (kind === 'rerun') await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/actions/rerun`, { rows: [id] });
  else await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/rows/delete`, { ids: [id] });
  return { ...one, at: Date.now() };
}

/**
 * @param {{ at: number } | undefined} seen
 * @param {Change} one
 */
const seenAfter = (seen, one) => seen !== undefined && seen.at >= one.at;

/**
 * The mirror after the follower stopped: no deleted row left, every edit's new name there.
 * @param {SyncContext} ctx
 * @param {Change[]} made
 * @param {string} name
 */
async function checkMirror(ctx, made, name) {
  const quoted = (/** @type {Change[]} */ list) => list.map((one) => `'${one.id}'`).join(', ') || "''";
  const union = [...new Set(made.map((one) => one.table.mirror))].map((mirror) => `SELECT _id, "Name" FROM ${mirror}`).join(' UNION ALL ');
  const deletions = made.filter((one) => one.kind === 'delete');
  const edits = made.filter((one) => one.kind === 'edit');
  const rows = await sql(
    ctx,
    `SELECT (SELECT count(*) FROM (${union}) WHERE _id IN (${quoted(deletions)})), ` +
      `(SELECT count(*) FROM (${union}) WHERE _id IN (${quoted(edits)}) AND "Name" LIKE 'Edited %')`,
    freshDb(ctx),
  );
  const [left, edited] = (rows[0] ?? []).map(Number);
  ctx.check(
    left === 0 && edited === edits.length,
    `${name}: the mirror has ${left} of ${deletions.length} deleted rows and ${edited} of ${edits.length} edits`,
  );
}

/**
 * (c) Idle rounds of a follower with verification off: the requests of 6 rounds after its first; then one row
 * through table 0's webhook and the time until it is in --changes.
 * @param {SyncContext} ctx
 * @param {Emulator} emu
 * @param {FreshTable[]} tables
 */
async function idleRounds(ctx, emu, tables) {
  const scale = FRESH_SCALE;
  const everyMs = (EVERY_SECONDS * 1000) / scale;
  const follower = startFollower(ctx, {
    db: freshDb(ctx),
    everySeconds: EVERY_SECONDS / scale,
    args: ['--max-stale', 'off', '--changes'],
    env: { TDS_RATE_SCALE: String(scale) },
  });
  await firstRoundOver(emu, follower.startedAt, everyMs);
  const from = Date.now();
  await sleep(6 * everyMs);
  const to = Date.now();
  const log = (await requestLog(emu)).filter((entry) => entry.at > from && entry.at <= to);
  const listings = log.filter((entry) => isListing(entry)).length;
  const rowRequests = log.filter((entry) => entry.bucket === 'rows').length;
  const other = log.length - listings - rowRequests;
  const rounds = (to - from) / everyMs;
  console.log(
    `(c) idle, ${TABLES} tables, ${seconds((to - from) * scale)} (at most ${Math.floor(rounds) + 1} rounds of --every ${EVERY_SECONDS}): ` +
      `${listings} listings, ${rowRequests} row requests, ${other} other requests. uptime: ${load()}`,
  );
  ctx.check(
    rowRequests === 0 && other === 0 && listings >= 3 && listings <= Math.floor(rounds) + 1,
    `(c) an idle round of ${TABLES} tables: 0 row requests and 1 listing (${rowRequests} row requests, ${listings} listings in ${listings} rounds or more)`,
  );

  const table = /** @type {FreshTable} */ (tables[0]);
  const before = follower.records();
  const postedAt = Date.now();
  const webhookUrl = emu.webhooks[table.id];
  if (!webhookUrl) throw new Error(`the emulator lists no webhook for ${table.id}`);
  await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Name: 'Arrived', Email: 'new@arrived.example' }),
  });
  const deadline = postedAt + (10 * (EVERY_SECONDS * 1000 + INTAKE_MS)) / scale;
  while (follower.records() === before && Date.now() < deadline) await sleep(20);
  const inserted = [...follower.seen.values()].find((seen) => seen.at >= postedAt && seen.change === 'added');
  await follower.stop();
  const lag = inserted ? (inserted.at - postedAt) * scale : Infinity;
  const bound = EVERY_SECONDS * 1000 + INTAKE_MS;
  console.log(`(c) a row posted to the webhook: in --changes after ${seconds(lag)} (service time). uptime: ${load()}`);
  ctx.check(lag <= bound, `(c) a new row in the mirror within --every + the intake window: ${seconds(lag)} <= ${seconds(bound)}`);
}

/**
 * Waits until the follower's first round (a listing, then each table's schema and newest page) is over: a listing
 * came after the last other request and another --every passed.
 * @param {Emulator} emu
 * @param {number} since
 * @param {number} everyMs
 */
async function firstRoundOver(emu, since, everyMs) {
  for (;;) {
    await sleep(everyMs);
    const log = (await requestLog(emu)).filter((entry) => entry.at >= since);
    const lastOther = log.findLast((entry) => !isListing(entry));
    if (lastOther && log.some((entry) => isListing(entry) && entry.at > lastOther.at)) return;
  }
}

/** @param {LoggedRequest & { path?: string }} entry */
const isListing = (entry) => entry.bucket === 'metadata' && /^\/v1\/tables(\?|$)/.test(entry.path ?? '');

/**
 * The pages of the tables now (P: a page of 100 rows each, at least one a table).
 * @param {Emulator} emu
 * @param {FreshTable[]} tables
 */
async function pagesOf(emu, tables) {
  /** @type {import('../emulator-api.mjs').TablesResponse} */
  const listing = await fetchJson(emu, 'GET', '/v1/tables');
  return tables.reduce((sum, table) => {
    const count = listing.tables.find((listed) => listed.id === table.id)?.rowCount ?? 0;
    return sum + Math.max(1, Math.ceil(count / 100));
  }, 0);
}

/**
 * A table of old rows (created 10 days ago and before) with a webhook and an action column, through the admin routes.
 * @param {Emulator} emu
 * @param {string} name
 * @param {number} count
 * @returns {Promise<FreshTable>}
 */
async function oldTable(emu, name, count) {
  /** @type {{ table: { id: string } }} */
  const made = await fetchJson(emu, 'POST', '/_emulator/tables', {
    workspace: 'Sales',
    name,
    webhook: true,
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
  const mirror = name.toLowerCase().replace(/\W+/g, '_');
  return { id: made.table.id, mirror, ids: added.rows.map((row) => row.id) };
}

/**
 * The most entries in any window of `windowMs` (entries in arrival order).
 * @param {LoggedRequest[]} entries
 * @param {number} windowMs
 */
export function busiestWindow(entries, windowMs) {
  let most = 0;
  let start = 0;
  for (let end = 0; end < entries.length; end += 1) {
    while (/** @type {LoggedRequest} */ (entries[end]).at - /** @type {LoggedRequest} */ (entries[start]).at >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * @template T
 * @param {T[]} list
 * @param {() => number} random
 */
function shuffle(list, random) {
  for (let i = list.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [/** @type {T} */ (list[j]), /** @type {T} */ (list[i])];
  }
  return list;
}

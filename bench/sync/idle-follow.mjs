// @ts-check
// Phase 3 of the sync bench: `tds sync --follow` idle, its polls counted in the emulator's request log; (a) within
// the watermark margin after the burst of phase 2, (b) once the burst is older than it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { addRows, fetchJson, generatedTable, requestLog } from '../emulator-api.mjs';
import { TDS_BIN, n, seconds, startEmulator } from '../support.mjs';
import { syncEnv } from './context.mjs';
import { ADDED, AGE_MS, EVERY_SECONDS, POLLS, TARGET } from './settings.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** @typedef {import('./context.mjs').SyncSummary} SyncSummary */
/** @typedef {import('../emulator-api.mjs').LoggedRequest} LoggedRequest */
/** @typedef {import('../support.mjs').Emulator} Emulator */

/**
 * The emulator is started from the state phase 2 saved.
 * @param {SyncContext} ctx
 */
export async function idleFollow(ctx) {
  console.log(
    `\n3. tds sync --follow --every ${EVERY_SECONDS}, idle, real rate limits, ${POLLS} polls each: (a) within the margin after the ` +
      `${n(ADDED)}-row burst (no target); (b) after the clock moved ${AGE_MS / 60_000} minutes and one row came. ` +
      `Target for (b): ${TARGET.requestsPerIdlePoll} row request per poll`,
  );
  const emu = await startEmulator(['--data', ctx.stateFile], ctx.emulators);
  const table = await generatedTable(emu);
  const follow = startFollow(ctx);
  const caughtUp = await follow.nextSummary(60_000); // round 0 always prints its summary
  const burst = await pollsAfter(emu, caughtUp.at, POLLS);
  reportPolls(ctx, `(a) idle within the margin after the ${n(ADDED)}-row burst`, { polls: burst, before: caughtUp.summary });
  console.log(
    `    (each poll reads again the rows created in the minute before it began, where a late webhook row can still show: ` +
      `the burst, until it is older than that)`,
  );

  await fetchJson(emu, 'POST', '/_emulator/clock', { advanceMs: AGE_MS });
  await addRows(emu, table, 1);
  const newRow = await follow.nextSummary(120_000); // the poll that found the row prints its summary
  const aged = await pollsAfter(emu, newRow.at, POLLS);
  reportPolls(ctx, '(b) idle, the burst older than the margin', {
    polls: aged,
    before: newRow.summary,
    target: TARGET.requestsPerIdlePoll,
  });

  const code = await follow.interrupt();
  console.log(`SIGINT: tds sync --follow exited with ${code}`);
  await emu.stop();
}

/**
 * Prints the polls of one idle stretch, and checks each against `target` when given.
 * @param {SyncContext} ctx
 * @param {string} name
 * @param {{ polls: LoggedRequest[][], before: SyncSummary, target?: number }} stretch before: the summary of the round
 *   before the polls; target: row requests a poll may take
 */
function reportPolls(ctx, name, { polls, before, target }) {
  const rows = polls.map((poll) => poll.filter((entry) => entry.bucket === 'rows').length);
  const all = polls.map((poll) => poll.length);
  const throttled = polls.flat().filter((entry) => entry.status === 429).length;
  const round = before.tables[0];
  console.log(
    `${name}: the round before read ${n(round?.rowsRead ?? 0)} rows in ${round?.requests ?? '?'} requests; ` +
      `then ${polls.length} polls: row requests ${rows.join(', ')}; all requests ${all.join(', ')}; ${throttled} answered 429`,
  );
  if (target === undefined) return;
  const worst = Math.max(...rows);
  ctx.check(worst <= target, `${name}: ${worst} row request${worst === 1 ? '' : 's'} per poll at most (target ${target})`);
}

/**
 * The first `count` polls whose requests all arrived after `since` (a poll: requests less than half of
 * --every apart; complete once the next one began or nothing came for a second).
 * @param {Emulator} emu
 * @param {number} since
 * @param {number} count
 * @returns {Promise<LoggedRequest[][]>}
 */
async function pollsAfter(emu, since, count) {
  const deadline = Date.now() + (count + 2) * EVERY_SECONDS * 1000 + 120_000;
  for (;;) {
    const entries = (await requestLog(emu)).filter((entry) => entry.at > since && entry.bucket !== undefined);
    /** @type {LoggedRequest[][]} */
    const polls = [];
    for (const entry of entries) {
      const current = polls.at(-1);
      const last = current?.at(-1);
      if (current && last && entry.at - last.at < (EVERY_SECONDS * 1000) / 2) current.push(entry);
      else polls.push([entry]);
    }
    const lastAt = polls.at(-1)?.at(-1)?.at ?? 0;
    const complete = Date.now() - lastAt > 1_000 ? polls : polls.slice(0, -1);
    if (complete.length >= count) return complete.slice(0, count);
    if (Date.now() > deadline) throw new Error(`only ${complete.length} polls of --follow came (${count} expected)`);
    await sleep(250);
  }
}

/**
 * `tds sync --db FILE --follow --every N --json` as a child: its summaries as they come, and a SIGINT.
 * @param {SyncContext} ctx
 */
function startFollow(ctx) {
  const child = spawn(process.execPath, [TDS_BIN, 'sync', '--db', ctx.db, '--follow', '--every', String(EVERY_SECONDS), '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: syncEnv(ctx),
  });
  const kill = () => child.kill('SIGKILL');
  ctx.cleanups.push(kill);
  let stderr = '';
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  /** @type {Array<{ at: number, summary: SyncSummary }>} */
  const summaries = [];
  createInterface({ input: child.stdout }).on('line', (line) => summaries.push({ at: Date.now(), summary: JSON.parse(line) }));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let taken = 0;
  return {
    /** The next summary line the follow prints (a round that changed something, or round 0). */
    async nextSummary(/** @type {number} */ timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (summaries.length <= taken) {
        if (child.exitCode !== null) throw new Error(`tds sync --follow exited with ${child.exitCode}: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`tds sync --follow printed no summary in ${seconds(timeoutMs)}: ${stderr}`);
        await sleep(100);
      }
      const next = summaries[taken++];
      if (!next) throw new Error('no summary');
      return next;
    },
    async interrupt() {
      child.kill('SIGINT');
      const code = await exited;
      ctx.cleanups.splice(ctx.cleanups.indexOf(kill), 1);
      return code;
    },
  };
}

// @ts-check
// Phase 6 of the sync bench (issue 30): a long `tds sync --follow --changes` (its defaults: --max-stale 1h,
// --max-share 0.5) over the 10 tables of phase 5, one hour of service time at rate scale LONG_SCALE, under the
// emulator's --churn (adds, updates, deletions, re-runs; rates in service time, so times the scale as the
// emulator counts them in real seconds). The follower's VmRSS (/proc/PID/status) and open file descriptors
// (/proc/PID/fd) are sampled throughout. Targets: peak RSS after the first 10 minutes at most 10 % above the peak
// of those 10 minutes; the descriptors flat: never more after the first 10 minutes than within them, but for those that
// come and go with the work (sockets: at most one more; the mirror's files: its file and WAL while a group is written).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestLog } from '../emulator-api.mjs';
import { join } from 'node:path';
import { cpuMsOf, load, n, seconds, startEmulator } from '../support.mjs';
import { EVERY_SECONDS, freshDb, freshState } from './freshness.mjs';
import { startFollower } from './follower.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/**
 * One sample: service minutes since the start, VmRSS in kB, open descriptors: in all, sockets, the mirror's files.
 * @typedef {{ minute: number, rssKb: number, fds: number, sockets: number, mirror: number }} Sample
 */

/**
 * 10: the hour takes 6 minutes. At 40 the follower used 86 s of CPU in its 90 s (a checkpoint at each
 * commit, mirror-db.ts): its rounds ran back to back, V8 never idle, not the hour it stands for, and its
 * peak moved by 13 % from run to run. At 10 it uses a third of a core.
 */
const LONG_SCALE = Number(process.env.BENCH_LONG_SCALE ?? 10);
const LONG_MINUTES = Number(process.env.BENCH_LONG_MINUTES ?? 60);
/** Churn per service minute, over every table of the emulator (the 10 followed ones and the demo's). */
const CHURN_PER_MINUTE = { add: 3, update: 3, delete: 0.3, rerun: 1 };
const EARLY_MINUTES = 10;
const SAMPLE_MS = 100;
/** The emulator's action delay (its default), service ms. */
const ACTION_DELAY_MS = 3_000;

/** @param {SyncContext} ctx */
export async function longFollow(ctx) {
  if (LONG_MINUTES <= 0) return; // BENCH_LONG_MINUTES=0: phase 5 alone
  const scale = LONG_SCALE;
  const churn = Object.entries(CHURN_PER_MINUTE)
    .map(([kind, perMinute]) => `${kind}:${perMinute * scale}/m`)
    .join(',');
  console.log(
    `\n6. a long tds sync --follow --every ${EVERY_SECONDS} --changes: ${LONG_MINUTES} minutes at rate scale ${scale} under churn ` +
      `${Object.entries(CHURN_PER_MINUTE)
        .map(([kind, perMinute]) => `${kind} ${perMinute}/min`)
        .join(', ')} (service time). Targets: peak RSS after the first ${EARLY_MINUTES} minutes grows <= 10 %; ` +
      `open file descriptors flat. uptime: ${load()}`,
  );
  const emu = await startEmulator(
    ['--rate-scale', String(scale), '--data', freshState(ctx), '--action-delay', String(ACTION_DELAY_MS / scale), '--churn', churn],
    ctx.emulators,
  );
  const memorySeries = join(ctx.dir, 'long-follow.memory.ndjson');
  const db = freshDb(ctx);
  const follower = startFollower(ctx, {
    db,
    everySeconds: EVERY_SECONDS / scale,
    args: ['--changes'],
    env: { TDS_RATE_SCALE: String(scale) },
    memorySeries,
  });
  /** @type {Sample[]} */
  const samples = [];
  const endAt = follower.startedAt + (LONG_MINUTES * 60_000) / scale;
  while (Date.now() < endAt) {
    const sample = sampleOf(follower.pid, db);
    if (sample) samples.push({ minute: ((Date.now() - follower.startedAt) * scale) / 60_000, ...sample });
    await sleep(SAMPLE_MS);
  }
  const cpu = cpuMsOf(follower.pid) ?? Number.NaN;
  const code = await follower.stop();
  const log = (await requestLog(emu)).filter((entry) => entry.at >= follower.startedAt);
  await emu.stop();

  if (samples.length === 0) throw new Error('no sample of the follower came (did it start?)');
  const early = samples.filter((sample) => sample.minute <= EARLY_MINUTES);
  const late = samples.filter((sample) => sample.minute > EARLY_MINUTES);
  const peak = (/** @type {Sample[]} */ list) => Math.max(...list.map((sample) => sample.rssKb));
  const most = (/** @type {Sample[]} */ list, /** @type {(sample: Sample) => number} */ count) => Math.max(...list.map(count));
  const others = (/** @type {Sample} */ sample) => sample.fds - sample.sockets - sample.mirror;
  const sockets = (/** @type {Sample} */ sample) => sample.sockets;
  const mirror = (/** @type {Sample} */ sample) => sample.mirror;
  const growth = peak(late) / peak(early) - 1;
  const stretches = [];
  for (let from = 0; from < LONG_MINUTES; from += EARLY_MINUTES) {
    const within = samples.filter((sample) => sample.minute > from && sample.minute <= from + EARLY_MINUTES);
    if (within.length === 0) continue;
    const fds = within.map((sample) => sample.fds);
    stretches.push(
      `${from}-${from + EARLY_MINUTES} min: ${mb(peak(within))}, fds ${Math.min(...fds)}..${Math.max(...fds)} (sockets up to ${most(within, sockets)}, the mirror's files ${most(within, mirror)})`,
    );
  }
  console.log(
    `${samples.length} samples; peak RSS / open descriptors per ${EARLY_MINUTES} minutes: ${stretches.join('; ')}. ` +
      `${n(follower.records())} --changes records; ${log.filter((entry) => entry.bucket === 'rows').length} row requests, ` +
      `${log.filter((entry) => entry.status === 429).length} answered 429; follower CPU ${seconds(cpu)} in ${seconds((LONG_MINUTES * 60_000) / scale)} ` +
      `real time; exit ${code}. uptime: ${load()}`,
  );
  const made = readMemorySeries(memorySeries, follower.startedAt, scale);
  console.log(`what the follower's RSS was made of at its peak: ${EARLY_MINUTES} minutes: ${made(early)}; after: ${made(late)}`);
  ctx.check(
    growth <= 0.1,
    `peak RSS after the first ${EARLY_MINUTES} minutes: ${mb(peak(late))} against ${mb(peak(early))} (${(growth * 100).toFixed(1)} %, target <= 10 %)`,
  );
  ctx.check(
    most(late, others) <= most(early, others),
    `open descriptors other than sockets and the mirror's after the first ${EARLY_MINUTES} minutes: at most ${most(late, others)} (${most(early, others)} within them)`,
  );
  // a keep-alive connection the service closed is replaced as a request goes: the new one can be open before the old one's close is seen
  ctx.check(
    most(late, sockets) <= most(early, sockets) + 1,
    `open sockets after the first ${EARLY_MINUTES} minutes: at most ${most(late, sockets)} (${most(early, sockets)} within them, target <= 1 more)`,
  );
  // the file and its WAL while a group is written (the WAL comes and goes with each commit's checkpoint), none between
  ctx.check(
    most(samples, mirror) <= 2,
    `the mirror's files open at once: at most ${most(samples, mirror)} (target <= 2: the file and its WAL)`,
  );
}

/**
 * The follower's VmRSS and open descriptors now (the mirror's: those under the path `db`); undefined once it is gone.
 * @param {number} pid
 * @param {string} db
 * @returns {Omit<Sample, 'minute'> | undefined}
 */
function sampleOf(pid, db) {
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    const fds = readdirSync(`/proc/${pid}/fd`);
    const targets = fds.map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile
      }
    });
    return {
      rssKb: Number(rss?.[1] ?? 0),
      fds: fds.length,
      sockets: targets.filter((target) => target.startsWith('socket:')).length,
      mirror: targets.filter((target) => target.startsWith(db)).length,
    };
  } catch {
    return undefined;
  }
}

/**
 * The memory-probe.mjs series of the follower: for a stretch of samples, what its RSS was made of at the probe sample
 * nearest the stretch's highest VmRSS.
 * @param {string} file
 * @param {number} startedAt
 * @param {number} scale
 */
function readMemorySeries(file, startedAt, scale) {
  /** @type {import('../memory-probe.mjs').ProbeSample[]} */
  const series = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const MB = (/** @type {number} */ bytes) => mb(bytes / 1024);
  return (/** @type {Sample[]} */ stretch) => {
    const top = stretch.reduce((best, sample) => (sample.rssKb > best.rssKb ? sample : best));
    const at = startedAt + (top.minute * 60_000) / scale;
    const near = series.reduce((best, sample) => (Math.abs(sample.at - at) < Math.abs(best.at - at) ? sample : best));
    const other = near.rss - near.heapTotal - near.external;
    return `RSS ${MB(near.rss)} = heap ${MB(near.heapUsed)} of ${MB(near.heapTotal)}, external ${MB(near.external)}, other (native: DuckDB, code) ${MB(other)}`;
  };
}

const mb = (/** @type {number} */ kb) => `${(kb / 1024).toFixed(1)} MB`;

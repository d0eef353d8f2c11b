// @ts-check
// A `tds sync --follow --changes` child for the freshness phases: when each row ID first came in --changes (and
// as which change), its stderr lines, its process ID (for /proc samples), and a SIGINT at the end.
// BENCH_FOLLOWER_NODE_ARGS: node options for the child (e.g. `--cpu-prof --cpu-prof-dir=DIR`, to see where a
// verification page's time goes).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MEMORY_PROBE, TDS_BIN } from '../support.mjs';
import { syncEnv } from './context.mjs';

/** @typedef {import('./context.mjs').SyncContext} SyncContext */
/** One --changes record as the bench reads it. @typedef {{ change?: string, _id?: string }} ChangeRecord */
/**
 * seen: row ID → when (Date.now()) its first --changes record came, and its change; records: how many came;
 * stderr: its lines so far.
 * @typedef {{ pid: number, startedAt: number, seen: Map<string, { at: number, change: string }>, records: () => number, stderr: string[], stop: () => Promise<number | string | null> }} Follower
 */

/**
 * Starts `tds sync --db DB --follow --every EVERY ARGS…` (EVERY in real seconds: the bench's rate scale applied);
 * with `memorySeries`, memory-probe.mjs appends its memory to that file every second.
 * @param {SyncContext} ctx
 * @param {{ db: string, everySeconds: number, args: string[], env: Record<string, string>, memorySeries?: string }} options
 * @returns {Follower}
 */
export function startFollower(ctx, { db, everySeconds, args, env, memorySeries }) {
  const node = [
    ...(process.env.BENCH_FOLLOWER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ...(memorySeries ? ['--import', MEMORY_PROBE] : []),
  ];
  const command = ['sync', '--db', db, '--follow', '--every', String(everySeconds), ...args];
  const child = spawn(process.execPath, [...node, TDS_BIN, ...command], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...syncEnv(ctx, env), ...(memorySeries ? { BENCH_MEMORY_SERIES: memorySeries } : {}) },
    cwd: ctx.dir,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start tds sync --follow');
  const kill = () => child.kill('SIGKILL');
  ctx.cleanups.push(kill);
  /** @type {Map<string, { at: number, change: string }>} */
  const seen = new Map();
  let records = 0;
  createInterface({ input: child.stdout }).on('line', (line) => {
    records += 1;
    /** @type {ChangeRecord} */
    const record = JSON.parse(line);
    if (record._id && !seen.has(record._id)) seen.set(record._id, { at: Date.now(), change: record.change ?? '?' });
  });
  /** @type {string[]} */
  const stderr = [];
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  /** @type {Promise<number | string | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    pid,
    startedAt: Date.now(),
    seen,
    records: () => records,
    stderr,
    async stop() {
      child.kill('SIGINT');
      const code = await exited;
      ctx.cleanups.splice(ctx.cleanups.indexOf(kill), 1);
      return code;
    },
  };
}

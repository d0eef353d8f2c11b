import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInProcess } from '../helpers/run-in-process.js';
import { spawnTds } from '../helpers/spawn-tds.js';
import type { Kill } from './history.js';
import type { World } from './world.js';

// The client of a simulated run: the real tds, in this process where the streams tell all, as a process
// (bin/tds.js) where a signal is part of the step. A process is killed once the emulator holds its
// `at`-th request (emulator/admin/sim-hooks.ts), so a replay kills it at the same point of its work.

export interface ClientRun {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** killed by the step (the request it was killed at held) */
  killed: boolean;
  /** the process was still there after the step (it outlived its step) */
  outlived: boolean;
}

/** How long a client step may take before the run counts it as hung (a violation). */
const STEP_TIMEOUT_MS = 90_000;

/** tds in this process, in the world's folder, with the world's environment. */
export async function runClient(world: World, args: string[], env: Record<string, string> = {}): Promise<ClientRun> {
  const { harness } = world;
  const result = await runInProcess(args, { cwd: harness.dir, env: { ...harness.env, ...env }, timeoutMs: STEP_TIMEOUT_MS });
  return { args, ...result, killed: false, outlived: result.signal === 'SIGKILL' };
}

/** Waits until the emulator holds a request of the child, then sends the signal (false: the child ended first). */
async function killWhenHeld(world: World, child: ChildProcess, kill: Kill, over: () => boolean): Promise<boolean> {
  while (!over()) {
    const { held } = await world.must<{ held: number }>('GET', '/hold');
    if (held > 0) {
      child.kill(kill.signal);
      // SIGTERM is handled as Ctrl-C: the held request goes on, as one in flight when the signal came
      if (kill.signal === 'SIGTERM') await world.must('DELETE', '/hold');
      return true;
    }
    await sleep(5);
  }
  return false;
}

/** bin/tds.js as a process; with `kill`, ended by that signal once the emulator holds its `kill.at`-th request. */
export async function spawnClient(world: World, args: string[], kill?: Kill, env: Record<string, string> = {}): Promise<ClientRun> {
  const { harness } = world;
  if (kill) await world.must('POST', '/hold', { after: kill.at });
  const child = spawnTds(args, { cwd: harness.dir, env: { ...harness.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let ended = false;
  void child.ended.then(
    () => (ended = true),
    () => (ended = true),
  );
  const started = Date.now();
  const stopTimer = new AbortController();
  try {
    const killed = kill ? await killWhenHeld(world, child.child, kill, () => ended || Date.now() - started > STEP_TIMEOUT_MS) : false;
    const timeout = sleep(STEP_TIMEOUT_MS - (Date.now() - started), 'timeout' as const, { signal: stopTimer.signal }).catch(
      () => 'ended' as const,
    );
    const outcome = await Promise.race([child.ended, timeout]);
    if (outcome === 'timeout' || outcome === 'ended') {
      child.child.kill('SIGKILL');
      const end = await child.ended;
      return { args, ...end, stdout: child.stdout(), stderr: child.stderr(), killed, outlived: true };
    }
    return { args, ...outcome, stdout: child.stdout(), stderr: child.stderr(), killed, outlived: false };
  } finally {
    stopTimer.abort();
    if (kill) await world.must('DELETE', '/hold');
  }
}

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
  /** its stdout was closed by the reader (stdout: what the reader read) */
  closed?: boolean;
}

/** How long a client step may take before the run counts it as hung (a violation). */
const STEP_TIMEOUT_MS = 90_000;

/** tds in this process, in the world's folder, with the world's environment. */
export async function runClient(world: World, args: string[], env: Record<string, string> = {}): Promise<ClientRun> {
  const { harness } = world;
  const result = await runInProcess(args, { cwd: harness.dir, env: { ...harness.env, ...env }, timeoutMs: STEP_TIMEOUT_MS });
  return { args, ...result, killed: false, outlived: result.signal === 'SIGKILL' };
}

/** A reader of the child's stdout that closes its end once it has read `bytes` (as `head -c`): what it read. */
function closingReader(child: ChildProcess, bytes: number): () => { text: string; closed: boolean } {
  const read: Buffer[] = [];
  let size = 0;
  let closed = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    if (closed) return;
    const kept = chunk.subarray(0, bytes - size);
    read.push(kept);
    size += kept.length;
    if (size >= bytes) {
      closed = true;
      child.stdout!.destroy();
    }
  });
  return () => ({ text: Buffer.concat(read).toString('utf8'), closed });
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

/** How a client process's step ends it: a signal at the emulator's N-th request, at a moment, or its stdout closed. */
export interface SpawnHow {
  kill?: Kill | undefined;
  /** SIGKILL once this resolves (the step's own moment, such as a POST the receiver holds) */
  killWhen?: Promise<void>;
  env?: Record<string, string>;
  /** its stdout read by a reader that closes its end after that many bytes */
  closeAfter?: number;
}

/** bin/tds.js as a process, ended as `how` says. */
export async function spawnClient(world: World, args: string[], how: SpawnHow = {}): Promise<ClientRun> {
  const { harness } = world;
  const { kill, killWhen, env = {}, closeAfter = 0 } = how;
  if (kill) await world.must('POST', '/hold', { after: kill.at });
  const child = spawnTds(args, { cwd: harness.dir, env: { ...harness.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let killedAtMoment = false;
  void killWhen?.then(() => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      killedAtMoment = true;
      child.child.kill('SIGKILL');
    }
  });
  const reader = closeAfter > 0 ? closingReader(child.child, closeAfter) : undefined;
  const stdout = (): Pick<ClientRun, 'stdout' | 'closed'> => {
    if (!reader) return { stdout: child.stdout() };
    const { text, closed } = reader();
    return { stdout: text, closed };
  };
  let ended = false;
  void child.ended.then(
    () => (ended = true),
    () => (ended = true),
  );
  const started = Date.now();
  const stopTimer = new AbortController();
  try {
    const killedAtRequest = kill
      ? await killWhenHeld(world, child.child, kill, () => ended || Date.now() - started > STEP_TIMEOUT_MS)
      : false;
    const timeout = sleep(STEP_TIMEOUT_MS - (Date.now() - started), 'timeout' as const, { signal: stopTimer.signal }).catch(
      () => 'ended' as const,
    );
    const outcome = await Promise.race([child.ended, timeout]);
    const killed = killedAtRequest || killedAtMoment;
    if (outcome === 'timeout' || outcome === 'ended') {
      child.child.kill('SIGKILL');
      const end = await child.ended;
      return { args, ...end, ...stdout(), stderr: child.stderr(), killed, outlived: true };
    }
    return { args, ...outcome, ...stdout(), stderr: child.stderr(), killed, outlived: false };
  } finally {
    stopTimer.abort();
    if (kill) await world.must('DELETE', '/hold');
  }
}

/** The last lines of a command's stderr, on one line: what a violation quotes. */
export const lastLines = (text: string): string => text.trim().split('\n').slice(-3).join(' | ');

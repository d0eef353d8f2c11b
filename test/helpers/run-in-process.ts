import { TdsError } from '../../src/core/errors.js';
import { streamsIO } from '../../src/core/io.js';
import { run } from '../../src/main.js';
import type { RunOptions, RunResult } from './cli.js';
import { memoryStreams } from './context.js';
import { runEnv } from './hermetic-env.js';
import { inFolder } from './working-directory.js';

// The command program run in this process, as bin/tds.js runs it (src/main.ts `run`), on memory
// streams with an environment of its own: for what a user sees on stdout, stderr and in the exit code.
// What only a process shows (signals, a pipe closed early, start-up) is spawned (spawn-tds.ts).

export interface InProcessOptions extends RunOptions {
  /** Aborting it interrupts the run as Ctrl-C interrupts a process (main.ts's first SIGINT). */
  interrupt?: AbortSignal;
  /** What the run wrote so far, readable while it runs (a follower's first summary, say). */
  output?: (written: { stdout(): string; stderr(): string }) => void;
}

/** Runs tds in-process; the options and result of runTds (`signal` is always null, as no process ends). */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<RunResult> {
  const env = runEnv(options.env);
  const streams = memoryStreams(options.input ?? '');
  const io = streamsIO({ ...streams, env }, { noColor: args.includes('--no-color') });
  options.output?.({ stdout: streams.stdoutText, stderr: streams.stderrText });
  const controller = new AbortController();
  options.interrupt?.addEventListener('abort', () => controller.abort(new TdsError('INTERRUPTED', 'interrupted')), { once: true });
  return inFolder(options.cwd, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.timeoutMs ?? 60_000)));
    try {
      const code = await Promise.race([withProcessEnv(env, () => run(args, io, controller.signal)), timedOut]);
      if (code === 'timeout') return { code: null, signal: 'SIGKILL', stdout: streams.stdoutText(), stderr: streams.stderrText() };
      return { code, signal: null, stdout: streams.stdoutText(), stderr: streams.stderrText() };
    } finally {
      clearTimeout(timer);
      // as a process's end would: connection pools close (they listen to the signal), a run still going stops
      controller.abort();
    }
  });
}

/**
 * commander reads the environment variables of options (TDS_BASE_URL, TDS_PROFILE, TDS_TIMEOUT,
 * TDS_RATE_SCALE of the emulator) from process.env while it parses, before the command's first await:
 * the run's own environment stands in for it during that synchronous start.
 */
function withProcessEnv<T>(env: NodeJS.ProcessEnv, start: () => T): T {
  const own = process.env;
  process.env = env;
  try {
    return start();
  } finally {
    process.env = own;
  }
}

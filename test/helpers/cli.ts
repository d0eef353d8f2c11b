import { spawnTds, TDS_BIN } from './spawn-tds.js';

export { TDS_BIN };

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. */
  input?: string | Buffer;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Runs the real CLI (bin/tds.js, built from src by `npm run build`) as a child process, killed after
 * `timeoutMs`. Its environment holds no TDS_* or colour variable of this process (hermetic-env.ts).
 * Where the streams tell all, runInProcess (run-in-process.ts) gives the same result without a process.
 */
export async function runTds(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const run = spawnTds(args, {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  const timer = setTimeout(() => run.child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  try {
    const { code, signal } = await run.ended;
    return { code, signal, stdout: run.stdout(), stderr: run.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

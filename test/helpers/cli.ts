import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const TDS_BIN = fileURLToPath(new URL('../../bin/tds.js', import.meta.url));

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to the child's stdin, which is then closed. */
  input?: string | Buffer;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Runs the real CLI (bin/tds.js, built from src by `npm run build`) as a child process.
 * The environment starts clean of TDS_* variables and colour so results do not depend on the caller's shell.
 */
export function runTds(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TDS_') && key !== 'FORCE_COLOR') env[key] = value;
  }
  env.NO_COLOR = '1';
  env.TDS_CONFIG_DIR = env.TDS_CONFIG_DIR ?? '/nonexistent-tds-config';
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TDS_BIN, ...args], {
      env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv, type EnvOverrides } from './hermetic-env.js';

// The suite's one way to start bin/tds.js as a process: for what only a process shows (signals, a
// pipe closed early, a full disk as stdout, locks between processes, start-up and lazy loading, the
// emulator apart from the client). What a user sees on the streams is tested in-process (run-in-process.ts).

export const TDS_BIN = fileURLToPath(new URL('../../bin/tds.js', import.meta.url));

export interface SpawnOptions {
  /** on top of this process's environment without any TDS_* or colour variable (undefined removes) */
  env?: EnvOverrides;
  cwd?: string;
  /** stdio of the child (default: all pipes) */
  stdio?: StdioOptions;
  /** written to the child's stdin (a pipe), which is then closed; without it, stdin is closed at once */
  input?: string | Buffer;
  /** stdin stays open for the test to write (a client speaking to `tds mcp`, records fed as a push runs) */
  openStdin?: boolean;
  /** node's own options, before bin/tds.js (e.g. --import HOOK) */
  nodeOptions?: string[];
  /** run through `sh -c 'ulimit -f BLOCKS; exec node …'`: writes past BLOCKS × 512 bytes fail with EFBIG */
  fileSizeBlocks?: number;
}

export interface SpawnedTds {
  child: ChildProcess;
  /** the exit code once the child has ended and its streams closed (null when a signal ended it) */
  exit: Promise<number | null>;
  /** how it ended: exit code or signal */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

export function spawnTds(args: string[], options: SpawnOptions = {}): SpawnedTds {
  const env = childEnv(options.env);
  const stdio = options.stdio ?? ['pipe', 'pipe', 'pipe'];
  const node = [...(options.nodeOptions ?? []), TDS_BIN, ...args];
  const child =
    options.fileSizeBlocks === undefined
      ? spawn(process.execPath, node, { env, cwd: options.cwd, stdio })
      : spawn('sh', ['-c', `ulimit -f ${options.fileSizeBlocks}; exec "$0" "$@"`, process.execPath, ...node], {
          env,
          cwd: options.cwd,
          stdio,
        });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    if (!options.openStdin) child.stdin.end(options.input ?? '');
  }
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    exit: ended.then(({ code }) => code),
    ended,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
  };
}

import { Chalk, supportsColor, type ChalkInstance } from 'chalk';

// Where output goes, and whether it is for a person (TTY) or a program. Tests force either.

export interface IO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** stdout is a terminal: human formats are the default, spinners allowed. */
  stdoutIsTTY: boolean;
  /** stderr is a terminal: progress and spinners go there. */
  stderrIsTTY: boolean;
  /** colour on stderr/stdout; off with NO_COLOR, --no-color, or a non-TTY. */
  color: ChalkInstance;
  colorEnabled: boolean;
  terminalWidth: number;
  env: NodeJS.ProcessEnv;
}

export interface IOOptions {
  noColor?: boolean;
}

export function processIO(options: IOOptions = {}): IO {
  return streamsIO({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }, options);
}

/** The streams and environment of a run: the process's own, or in-memory ones (in-process tests). */
export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export function streamsIO(streams: Streams, options: IOOptions = {}): IO {
  const { stdout, stderr, stdin, env } = streams;
  const stdoutIsTTY = Boolean(stdout.isTTY) || env.TDS_FORCE_TTY === '1';
  const stderrIsTTY = Boolean(stderr.isTTY) || env.TDS_FORCE_TTY === '1';
  const colorEnabled = !options.noColor && env.NO_COLOR === undefined && (stdoutIsTTY || stderrIsTTY) && env.TERM !== 'dumb';
  const level = colorEnabled ? (supportsColor ? supportsColor.level : 1) || 1 : 0;
  const color = new Chalk({ level });
  return {
    stdout,
    stderr,
    stdin,
    stdoutIsTTY,
    stderrIsTTY,
    color,
    colorEnabled,
    terminalWidth: stdout.columns || Number(env.COLUMNS) || 100,
    env,
  };
}

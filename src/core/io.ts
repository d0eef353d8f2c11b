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
  const env = process.env;
  const stdoutIsTTY = Boolean(process.stdout.isTTY) || env.TDS_FORCE_TTY === '1';
  const stderrIsTTY = Boolean(process.stderr.isTTY) || env.TDS_FORCE_TTY === '1';
  const colorEnabled = !options.noColor && env.NO_COLOR === undefined && (stdoutIsTTY || stderrIsTTY) && env.TERM !== 'dumb';
  const level = colorEnabled ? (supportsColor ? supportsColor.level : 1) || 1 : 0;
  const color = new Chalk({ level });
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY,
    stderrIsTTY,
    color,
    colorEnabled,
    terminalWidth: process.stdout.columns || Number(env.COLUMNS) || 100,
    env,
  };
}

import { PassThrough } from 'node:stream';
import { Chalk } from 'chalk';
import type { Context } from '../../src/core/context.js';

// The suite's one in-memory context: streams that keep what was written, for commands and parts of
// them run without a process (the in-process runner builds its IO on the same streams).

export interface MemoryStreams {
  stdout: PassThrough;
  stderr: PassThrough & { columns?: number };
  stdin: PassThrough;
  stdoutText(): string;
  stderrText(): string;
}

/** stdin holds `stdinText` and ends (none: it stays open); stdout and stderr keep everything written. */
export function memoryStreams(stdinText?: string | Buffer, stderrColumns?: number): MemoryStreams {
  const stdin = new PassThrough();
  if (stdinText !== undefined) stdin.end(stdinText);
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), stderrColumns === undefined ? {} : { columns: stderrColumns });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return {
    stdout,
    stderr,
    stdin,
    stdoutText: () => Buffer.concat(out).toString('utf8'),
    stderrText: () => Buffer.concat(err).toString('utf8'),
  };
}

export interface MemoryContextOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  stdoutIsTTY?: boolean;
  /** stderr as a terminal (of `columns` columns when given) */
  terminal?: { columns?: number };
  terminalWidth?: number;
  /** --verbose lines are written to stderr */
  verbose?: boolean;
}

export interface MemoryContext {
  ctx: Context;
  stdout(): string;
  stderr(): string;
  /** aborts ctx.signal, as Ctrl-C does */
  controller: AbortController;
}

/** A Context over memory streams: no colour, not a terminal unless asked, the environment given (empty by default). */
export function memoryContext(options: MemoryContextOptions = {}): MemoryContext {
  const streams = memoryStreams(options.stdin, options.terminal?.columns);
  const controller = new AbortController();
  const ctx: Context = {
    io: {
      stdout: streams.stdout,
      stderr: streams.stderr,
      stdin: streams.stdin,
      stdoutIsTTY: options.stdoutIsTTY ?? false,
      stderrIsTTY: options.terminal !== undefined,
      color: new Chalk({ level: 0 }),
      colorEnabled: false,
      terminalWidth: options.terminalWidth ?? 100,
      env: options.env ?? {},
    },
    signal: controller.signal,
    verbose: options.verbose ? (line) => void streams.stderr.write(`${line}\n`) : () => undefined,
  };
  return { ctx, stdout: streams.stdoutText, stderr: streams.stderrText, controller };
}

/** A Context over in-memory streams, for tests that need no process. */
export function testContext(
  env: NodeJS.ProcessEnv,
  stdinText?: string,
  /** stderr as a terminal (of `columns` columns when given: a PassThrough says none) */
  terminal?: { columns?: number },
): Context & { stderrText(): string } {
  const { ctx, stderr } = memoryContext({
    env,
    ...(stdinText === undefined ? {} : { stdin: stdinText }),
    ...(terminal ? { terminal } : {}),
  });
  return Object.assign(ctx, { stderrText: stderr });
}

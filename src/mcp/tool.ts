import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Session } from './session.js';
import { Readable, Writable } from 'node:stream';
import { Chalk } from 'chalk';
import type { Context } from '../core/context.js';
import { boundText } from './tool-result.js';

/** A progress notification's content (sent only when the client asked for them with a progress token). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool gets for one call. */
export interface ToolCall {
  session: Session;
  /** the Context its command code runs with: stdout captured, the call's signal */
  call: CallContext;
  signal: AbortSignal;
  progress(update: ProgressUpdate): void;
}

/**
 * One tool: its name, a description written for the agent (what it returns, its caps, when another
 * tool is better), its input and output schemas, and what it does. A failure is thrown (a TdsError
 * with the command line's message) and becomes an `isError` result.
 */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  run(args: z.output<S>, call: ToolCall): Promise<Record<string, unknown>>;
}

export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** A failure with more to tell than its message (a push's summary), shown after the message and hint. */
export class ToolFailure extends Error {
  constructor(
    readonly failure: unknown,
    readonly detail: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/** The Context a tool runs the command code with, and what that code printed. */
export interface CallContext {
  ctx: Context;
  /** What the code wrote to its stdout (a summary with --json): never the process's stdout, which is the protocol's. */
  stdout(): string;
  /** The lines it wrote to stderr (notes, warnings), which also go to the server's log. */
  notes(): string[];
}

/**
 * A Context for one tool call: stdout captured, stderr kept and passed on to the log (each line
 * bounded), no stdin, no
 * terminal (so no progress line or colour), and the call's signal (cancelled, or the server ending).
 */
export function callContext(base: Context, signal: AbortSignal): CallContext {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      out.push(String(chunk));
      callback();
    },
  });
  const stderr = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      // each line cut to MAX_LINE_CHARS: a note may echo an argument of megabytes
      const text = String(chunk)
        .split('\n')
        .map((line) => boundText(line))
        .join('\n');
      err.push(text);
      base.io.stderr.write(text, callback);
    },
  });
  const ctx: Context = {
    ...base,
    signal,
    io: {
      ...base.io,
      stdout,
      stderr,
      stdin: Readable.from([]),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      colorEnabled: false,
      color: new Chalk({ level: 0 }),
    },
  };
  return {
    ctx,
    stdout: () => out.join(''),
    notes: () =>
      err
        .join('')
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line !== ''),
  };
}

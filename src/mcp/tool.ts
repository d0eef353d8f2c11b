// A tool of `tds mcp`: its definition (defineTool), what one call gets (ToolCall, a Context of its own), and
// what it answers: a result within the caps, or a failure as the command line words it.

import type { ToolAnnotations, CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Caps, HintsOf, Session } from './session.js';
import { Readable, Writable } from 'node:stream';
import { Chalk } from 'chalk';
import { type Context, TdsError, redactSecrets } from '../core/index.js';

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

// What a tool answers: its structured result and the same as JSON text; or a failure with the message
// and hint the command line would print (never a thrown error, never a secret, never longer than the
// caps: an argument echoed in a message is cut, as it is in the server's log).

export function toolSuccess(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** The most characters a failure's message or hint, or a line of the server's log, holds. */
export const MAX_LINE_CHARS = 1_000;

/**
 * `tds: MESSAGE` and `hint: HINT`, as on the command line's stderr, each at most MAX_LINE_CHARS;
 * `detail` (e.g. a push summary) after them; the whole at most `maxBytes`. Secrets are redacted
 * before anything is cut, so no part of one is left.
 */
export function toolFailure(
  error: unknown,
  options: { hintsOf: HintsOf; secrets: Iterable<string | undefined>; detail?: string; maxBytes?: number },
): CallToolResult {
  const secrets = [...options.secrets];
  const lines = failureLines(error, options.hintsOf).map((line) => boundText(redactSecrets(line, secrets)));
  if (options.detail) lines.push(redactSecrets(options.detail, secrets));
  const text = boundBytes(lines.join('\n'), options.maxBytes ?? Infinity);
  return { content: [{ type: 'text', text }], isError: true };
}

function failureLines(error: unknown, hintsOf: HintsOf): string[] {
  if (error instanceof TdsError) {
    const hint = hintsOf(error);
    return [`tds: ${error.message}`, ...(hint ? [`hint: ${hint}`] : [])];
  }
  const message = error instanceof Error ? error.message : String(error);
  return [`tds: unexpected failure: ${message}`, 'hint: this is a bug in tds; the server goes on (its log on stderr has the details)'];
}

/** `text` in at most `max` characters: a longer one keeps its head and its tail around what was cut, and says how much. */
export function boundText(text: string, max = MAX_LINE_CHARS): string {
  if (text.length <= max) return text;
  const room = max - 40;
  let head = text.slice(0, Math.ceil(room * 0.6));
  let tail = text.slice(text.length - (room - head.length));
  // never half of a character
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}…[${(text.length - head.length - tail.length).toLocaleString('en-US')} characters cut]…${tail}`;
}

/** `text` in at most `max` bytes of UTF-8, its end cut and marked when longer. */
function boundBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  const mark = "\n…[cut: the server's --max-bytes]";
  const head = Buffer.from(text, 'utf8')
    .subarray(0, Math.max(0, max - Buffer.byteLength(mark, 'utf8')))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return head + mark;
}

/** The truncation members of a capped result: `truncated`, and when cut, a hint that says by what and what to do (`unit`: what its items are). */
export function truncation(
  cut: { cutBy?: CutBy; kept: number; total: number },
  caps: Caps,
  advice: string,
  unit = 'rows',
): { truncated: boolean; hint?: string } {
  if (!cut.cutBy) return { truncated: false };
  const n = (value: number): string => value.toLocaleString('en-US');
  const by =
    cut.cutBy === 'rows'
      ? `at most ${n(caps.maxRows)} rows (max rows)`
      : `at most ${n(caps.maxBytes)} bytes of text (the server's --max-bytes)`;
  return { truncated: true, hint: `only the first ${n(cut.kept)} of ${n(cut.total)} ${unit} are here: a result holds ${by}; ${advice}` };
}

// The caps of every tool result (docs/cli.md "MCP"): at most --max-rows rows and --max-bytes of text. A
// result is cut at the longest head of its rows that fits both, and says so.

/** Which cap cut a result: its rows, or its text. */
export type CutBy = 'rows' | 'bytes';

export interface CappedResult<R> {
  result: R;
  /** rows kept */
  kept: number;
  /** undefined when nothing was cut */
  cutBy?: CutBy;
}

/** Bytes of a value's JSON text, as a tool result's text holds it. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * The result built from the longest head of `rows` that holds at most `caps.maxRows` rows and whose
 * JSON text is at most `caps.maxBytes` bytes. `build(head, cutBy)` makes the result (its envelope may
 * depend on whether, and how, it was cut: a truncation flag, a hint). When even no row does not fit,
 * the result has none.
 */
export function capRows<T, R>(rows: readonly T[], caps: Caps, build: (head: T[], cutBy?: CutBy) => R): CappedResult<R> {
  if (rows.length <= caps.maxRows) {
    const whole = build([...rows]);
    if (jsonBytes(whole) <= caps.maxBytes) return { result: whole, kept: rows.length };
  }
  const head = rows.slice(0, caps.maxRows);
  // an array's JSON text is its items' texts joined by commas: the head that fits is found from the
  // items' sizes and the envelope's, then checked (a count in the envelope may have grown a digit)
  let kept = fittingHead(head, caps.maxBytes - jsonBytes(build([], 'bytes')));
  for (;;) {
    const cutBy: CutBy = kept < head.length ? 'bytes' : 'rows';
    const result = build(head.slice(0, kept), cutBy);
    if (jsonBytes(result) <= caps.maxBytes || kept === 0) return { result, kept, cutBy };
    kept -= 1;
  }
}

/** How many items, from the first, fit in `room` bytes of a JSON array (commas counted). */
function fittingHead(items: readonly unknown[], room: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i += 1) {
    used += jsonBytes(items[i]) + (i > 0 ? 1 : 0);
    if (used > room) return i;
  }
  return items.length;
}

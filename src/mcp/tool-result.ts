import type { CallToolResult } from '@modelcontextprotocol/server';
import { TdsError, type FailureReason } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import type { Caps, CutBy } from './caps.js';

// What a tool answers: its structured result and the same as JSON text; or a failure with the message
// and hint the command line would print (never a thrown error, never a secret, never longer than the
// caps: an argument echoed in a message is cut, as it is in the server's log).

export type HintsOf = (error: { reason?: FailureReason; hint?: string }) => string | undefined;

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

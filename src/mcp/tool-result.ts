import type { CallToolResult } from '@modelcontextprotocol/server';
import { TdsError, type FailureReason } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import type { Caps, CutBy } from './caps.js';

// What a tool answers: its structured result and the same as JSON text; or a failure with the message
// and hint the command line would print (never a thrown error, never a secret).

export type HintsOf = (error: { reason?: FailureReason; hint?: string }) => string | undefined;

export function toolSuccess(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** `tds: MESSAGE` and `hint: HINT`, as on the command line's stderr; `detail` (e.g. a push summary) after them. */
export function toolFailure(
  error: unknown,
  options: { hintsOf: HintsOf; secrets: Iterable<string | undefined>; detail?: string },
): CallToolResult {
  const text = redactSecrets(failureText(error, options.hintsOf) + (options.detail ? `\n${options.detail}` : ''), options.secrets);
  return { content: [{ type: 'text', text }], isError: true };
}

function failureText(error: unknown, hintsOf: HintsOf): string {
  if (error instanceof TdsError) {
    const hint = hintsOf(error);
    return `tds: ${error.message}${hint ? `\nhint: ${hint}` : ''}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `tds: unexpected failure: ${message}\nhint: this is a bug in tds; the server goes on (its log on stderr has the details)`;
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

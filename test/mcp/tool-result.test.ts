import { describe, expect, it } from 'vitest';
import { TdsError, UsageError } from '../../src/core/errors.js';
import { boundText, MAX_LINE_CHARS, toolFailure, toolSuccess } from '../../src/mcp/tool-result.js';
import { hintsOf } from '../../src/commands/hints.js';

// A tool's answer: the structured result and the same as text; a failure as the command line says it.

describe('toolSuccess', () => {
  it('is the structured result and its JSON text', () => {
    const result = toolSuccess({ rows: [{ n: 1 }], truncated: false });
    expect(result.structuredContent).toEqual({ rows: [{ n: 1 }], truncated: false });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  });
});

describe('toolFailure', () => {
  const text = (result: ReturnType<typeof toolFailure>): string => (result.content[0] as { text: string }).text;

  it('is an isError result with the message and the hint of the command line', () => {
    const result = toolFailure(
      new TdsError('NOT_FOUND', 'no table with ID or name "Nope" in this organization', { reason: 'unknown-table' }),
      {
        hintsOf,
        secrets: [],
      },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'tds: no table with ID or name "Nope" in this organization\nhint: `tds tables` lists the tables this API key can read',
    );
  });

  it('says an unexpected failure is a bug, and adds what more it has to tell', () => {
    expect(text(toolFailure(new TypeError('x is undefined'), { hintsOf, secrets: [] }))).toMatch(
      /^tds: unexpected failure: x is undefined\nhint: this is a bug/,
    );
    expect(text(toolFailure(new UsageError('push incomplete'), { hintsOf, secrets: [], detail: 'the push summary: {}' }))).toBe(
      'tds: push incomplete\nthe push summary: {}',
    );
  });

  it('never holds a secret', () => {
    const key = 'sk_live_0123456789abcdef';
    const url = 'https://hooks.example/v1/webhook/AbCdEfGhIjKlMnOp';
    const result = toolFailure(new UsageError(`bad ${key} at ${url}`, { hint: `not ${url}` }), { hintsOf, secrets: [key, url] });
    expect(text(result)).not.toContain(key);
    expect(text(result)).not.toContain(url);
  });

  it('is bounded: the message and hint lines, and the whole in --max-bytes; a secret is redacted before any cut (issue 29, item 10)', () => {
    const key = 'sk_live_0123456789abcdef';
    const long = `${'a'.repeat(3_000_000)}${key}`;
    const result = text(toolFailure(new UsageError(`no table "${long}"`, { hint: long }), { hintsOf, secrets: [key], maxBytes: 5_000 }));
    const [message, hint] = result.split('\n');
    expect(message!.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(message).toMatch(/^tds: no table "a+…\[2,999,\d{3} characters cut\]…a+\*\*\*"$/);
    expect(hint!.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(result).not.toContain(key.slice(0, 8));
    const detail = text(
      toolFailure(new UsageError('push incomplete'), { hintsOf, secrets: [], detail: 'é'.repeat(10_000), maxBytes: 5_000 }),
    );
    expect(Buffer.byteLength(detail)).toBeLessThanOrEqual(5_000);
    expect(detail).toMatch(/é\n…\[cut: the server's --max-bytes\]$/);
  });
});

describe('boundText', () => {
  it('keeps a text that fits, and cuts the middle of a longer one without splitting a character', () => {
    expect(boundText('short')).toBe('short');
    expect(boundText('x'.repeat(MAX_LINE_CHARS))).toBe('x'.repeat(MAX_LINE_CHARS));
    const cut = boundText('😀'.repeat(5_000), 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^(😀)+…\[\d[\d,]* characters cut\]…(😀)+$/u);
  });
});

import { describe, expect, it } from 'vitest';
import { TdsError, UsageError } from '../../src/core/errors.js';
import { toolFailure, toolSuccess } from '../../src/mcp/tool-result.js';
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
});

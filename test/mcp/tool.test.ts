// A tool's answer: the structured result and the same as text; a failure as the command line says it.

import { describe, expect, it } from 'vitest';
import { TdsError, UsageError } from '../../src/core/errors.js';
import { boundText, MAX_LINE_CHARS, toolFailure, toolSuccess, capRows, jsonBytes, type CutBy, truncation } from '../../src/mcp/tool.js';
import { hintsOf } from '../../src/commands/hints.js';
import type { Caps } from '../../src/mcp/session.js';

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

// The caps of a tool result: at most maxRows rows and maxBytes of JSON text, cut at the longest head
// that fits both, with `truncated`, the full count and a hint.

const rows = (count: number, width = 10): Array<{ id: number; text: string }> =>
  Array.from({ length: count }, (_, id) => ({ id, text: 'x'.repeat(width) }));

const build =
  (total: number) =>
  <T>(head: T[], cutBy?: CutBy) => ({ rows: head, row_count: total, ...(cutBy ? { truncated: true, cutBy } : { truncated: false }) });

describe('capRows', () => {
  it.each([
    { what: 'fewer rows than the cap, small text', count: 5, caps: { maxRows: 10, maxBytes: 10_000 }, kept: 5, cutBy: undefined },
    { what: 'as many rows as the cap', count: 10, caps: { maxRows: 10, maxBytes: 10_000 }, kept: 10, cutBy: undefined },
    { what: 'more rows than the cap', count: 11, caps: { maxRows: 10, maxBytes: 10_000 }, kept: 10, cutBy: 'rows' },
    { what: 'rows that outgrow the bytes', count: 50, caps: { maxRows: 100, maxBytes: 500 }, kept: 15, cutBy: 'bytes' },
    { what: 'both caps: the bytes first', count: 500, caps: { maxRows: 100, maxBytes: 500 }, kept: 15, cutBy: 'bytes' },
    { what: 'an envelope alone over the bytes', count: 3, caps: { maxRows: 100, maxBytes: 10 }, kept: 0, cutBy: 'bytes' },
    { what: 'no rows', count: 0, caps: { maxRows: 100, maxBytes: 1000 }, kept: 0, cutBy: undefined },
  ] satisfies Array<{ what: string; count: number; caps: Caps; kept: number; cutBy: CutBy | undefined }>)(
    '$what: keeps $kept',
    ({ count, caps, kept, cutBy }) => {
      const all = rows(count);
      const capped = capRows(all, caps, build(count));
      expect(capped.kept).toBe(kept);
      expect(capped.cutBy).toBe(cutBy);
      expect(capped.result.rows).toEqual(all.slice(0, kept));
      expect(capped.result.row_count).toBe(count);
      if (kept > 0) expect(jsonBytes(capped.result)).toBeLessThanOrEqual(caps.maxBytes);
    },
  );

  it('keeps the longest head that fits: one more row would not', () => {
    for (const maxBytes of [200, 333, 777, 1500]) {
      const all = rows(100, 7);
      const { result, kept } = capRows(all, { maxRows: 1000, maxBytes }, build(100));
      expect(jsonBytes(result)).toBeLessThanOrEqual(maxBytes);
      expect(jsonBytes(build(100)(all.slice(0, kept + 1), 'bytes'))).toBeGreaterThan(maxBytes);
    }
  });

  it('counts bytes, not characters: multi-byte text fills the cap sooner', () => {
    const ascii = capRows([{ t: 'aaaa' }, { t: 'aaaa' }, { t: 'aaaa' }], { maxRows: 10, maxBytes: 70 }, build(3));
    const accented = capRows([{ t: 'éééé' }, { t: 'éééé' }, { t: 'éééé' }], { maxRows: 10, maxBytes: 70 }, build(3));
    expect(accented.kept).toBeLessThan(ascii.kept);
  });

  it('rechecks the envelope: a count that grows a digit as rows are kept still fits', () => {
    const all = rows(30, 1);
    const withCount = <T>(head: T[], cutBy?: CutBy) => ({ rows: head, returned: head.length, truncated: Boolean(cutBy) });
    for (let maxBytes = 40; maxBytes < 600; maxBytes += 7) {
      const { result } = capRows(all, { maxRows: 1000, maxBytes }, withCount);
      if (result.rows.length > 0) expect(jsonBytes(result)).toBeLessThanOrEqual(maxBytes);
    }
  });
});

describe('truncation', () => {
  const caps = { maxRows: 100, maxBytes: 50_000 };

  it('says nothing was cut', () => {
    expect(truncation({ kept: 3, total: 3 }, caps, 'aggregate')).toEqual({ truncated: false });
  });

  it.each([
    { cutBy: 'rows' as const, says: 'at most 100 rows' },
    { cutBy: 'bytes' as const, says: 'at most 50,000 bytes of text' },
  ])('cut by $cutBy: the full count, the cap that cut it, and what to do', ({ cutBy, says }) => {
    const { truncated, hint } = truncation({ cutBy, kept: 100, total: 12_345 }, caps, 'aggregate in SQL');
    expect(truncated).toBe(true);
    expect(hint).toContain('only the first 100 of 12,345 rows');
    expect(hint).toContain(says);
    expect(hint).toContain('aggregate in SQL');
  });
});

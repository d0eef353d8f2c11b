import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { FilterError, markPlace } from '../../src/filter/errors.js';

describe('FilterError', () => {
  it('is a usage error (exit 2) with its hint', () => {
    const error = new FilterError('bad', { hint: 'do this' });
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.hint).toBe('do this');
    expect(error.message).toBe('bad');
  });

  it.each([
    [{ source: '--filter', path: 'rules[0].value' }, '--filter: rules[0].value: bad'],
    [{ path: 'filters.rules[1]' }, 'filters.rules[1]: bad'],
    [{ source: '--where', expression: 'a = b', position: 4 }, '--where: bad (at character 5):\n  a = b\n      ^'],
    [{ source: '--where', expression: 'a =', position: 3 }, '--where: bad (at the end of the expression):\n  a =\n     ^'],
    [
      { source: '--where #2', expression: '"é ü" = x', position: 6, length: 1 },
      '--where #2: bad (at character 7):\n  "é ü" = x\n        ^',
    ],
  ])('formats %j', (location, message) => {
    expect(new FilterError('bad', { location }).message).toBe(message);
  });

  it('keeps problem and hint when placed again', () => {
    const placed = new FilterError('bad', { hint: 'h' }).at({ source: '--where', expression: 'xyz', position: 1, length: 2 });
    expect(placed).toBeInstanceOf(FilterError);
    expect(placed.problem).toBe('bad');
    expect(placed.hint).toBe('h');
    expect(placed.message).toBe('--where: bad (at character 2):\n  xyz\n   ^^');
  });
});

describe('markPlace', () => {
  it.each(
    (
      [
        ['counts an emoji as one character', '😀 = x', 3, 1, '😀 = x', '  ^'],
        ['shows control characters as spaces', 'a\n=\tb\u001b[31m', 4, 1, 'a = b [31m', '    ^'],
        ['underlines a span', 'Age contains 5', 4, 8, 'Age contains 5', '    ^^^^^^^^'],
        ['clips a span at the end of the text', 'ab', 1, 10, 'ab', ' ^'],
      ] as Array<[string, string, number, number, string, string]>
    ).map(([name, expression, position, length, line, caret]) => ({ name, expression, position, length, line, caret })),
  )('$name', ({ expression, position, length, line, caret }) => {
    expect(markPlace(expression, position, length)).toEqual({ line, caret });
  });

  it('shows a window of a long expression around the place', () => {
    const expression = `${'a = 1 and '.repeat(30)}oops`;
    const position = expression.indexOf('oops');
    const { line, caret } = markPlace(expression, position, 4);
    expect(line.startsWith('…')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(82);
    expect(line.slice(caret.indexOf('^'), caret.length)).toBe('oops');
  });

  it('keeps the place visible in the middle of a long expression', () => {
    const expression = `${'x'.repeat(200)} HERE ${'y'.repeat(200)}`;
    const { line, caret } = markPlace(expression, 201, 4);
    expect(line.startsWith('…') && line.endsWith('…')).toBe(true);
    expect(line.slice(caret.indexOf('^'), caret.length)).toBe('HERE');
  });
});

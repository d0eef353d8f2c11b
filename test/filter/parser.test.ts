import { describe, expect, it } from 'vitest';
import { parseWhere, type WhereExpr, type WhereValue } from '../../src/filter/parser.js';
import { OPERATORS, VALUELESS_OPERATORS } from '../../src/service/index.js';
import { catchFilterError } from './catch-filter-error.js';
import { withoutPositions } from './print.js';

/** Compact shape of an AST: terms as their column, groups as { and: […] } / { or: […] }. */
function shape(expr: WhereExpr): unknown {
  return expr.kind === 'term' ? expr.column : { [expr.kind]: expr.items.map(shape) };
}

const value = (text: string): WhereValue | undefined => {
  const expr = parseWhere(`x = ${text}`);
  return expr.kind === 'term' ? expr.value : undefined;
};

describe('parseWhere: precedence and grouping', () => {
  it.each<[string, unknown]>([
    ['a = 1', 'a'],
    ['a = 1 and b = 2', { and: ['a', 'b'] }],
    ['a = 1 and b = 2 and c = 3', { and: ['a', 'b', 'c'] }],
    ['a = 1 or b = 2 or c = 3', { or: ['a', 'b', 'c'] }],
    ['a = 1 or b = 2 and c = 3', { or: ['a', { and: ['b', 'c'] }] }],
    ['a = 1 and b = 2 or c = 3', { or: [{ and: ['a', 'b'] }, 'c'] }],
    ['a = 1 AND b = 2 Or c = 3 aNd d = 4', { or: [{ and: ['a', 'b'] }, { and: ['c', 'd'] }] }],
    ['(a = 1 or b = 2) and c = 3', { and: [{ or: ['a', 'b'] }, 'c'] }],
    ['a = 1 and (b = 2 or c = 3)', { and: ['a', { or: ['b', 'c'] }] }],
    ['(a = 1 and b = 2) and c = 3', { and: [{ and: ['a', 'b'] }, 'c'] }],
    ['((a = 1))', 'a'],
    ['(a = 1) or (b = 2)', { or: ['a', 'b'] }],
    ['((a = 1 or b = 2) and (c = 3 or (d = 4 and e = 5)))', { and: [{ or: ['a', 'b'] }, { or: ['c', { and: ['d', 'e'] }] }] }],
    ['a null and b notNull or c hasError', { or: [{ and: ['a', 'b'] }, 'c'] }],
    ['and = 1 and or = 2', { and: ['and', 'or'] }],
  ])('%s', (text, expected) => {
    expect(shape(parseWhere(text))).toEqual(expected);
  });

  it('records the positions of columns, operators, values and groups', () => {
    const expr = parseWhere('x = 1 or ("Full name" contains "a b" and t null)');
    expect(expr).toEqual({
      kind: 'or',
      pos: 0,
      items: [
        { kind: 'term', column: 'x', columnPos: 0, operator: '=', operatorPos: 2, value: { type: 'number', text: '1' }, valuePos: 4 },
        {
          kind: 'and',
          pos: 9,
          items: [
            {
              kind: 'term',
              column: 'Full name',
              columnPos: 10,
              operator: 'contains',
              operatorPos: 22,
              value: { type: 'string', text: 'a b' },
              valuePos: 31,
            },
            { kind: 'term', column: 't', columnPos: 41, operator: 'null', operatorPos: 43, valuePos: 47 },
          ],
        },
      ],
    });
  });
});

describe('parseWhere: operators', () => {
  it.each(OPERATORS.filter((op) => !VALUELESS_OPERATORS.includes(op)))('%s takes a value', (operator) => {
    expect(withoutPositions(parseWhere(`x ${operator} v`))).toEqual({
      kind: 'term',
      column: 'x',
      operator,
      value: { type: 'word', text: 'v' },
    });
  });

  it.each(VALUELESS_OPERATORS)('%s takes no value', (operator) => {
    expect(withoutPositions(parseWhere(`x ${operator}`))).toEqual({ kind: 'term', column: 'x', operator });
  });

  it.each([
    ['x CONTAINS a', 'contains'],
    ['x isdatepreset today', 'isDatePreset'],
    ['x DOESNOTCONTAINANYOF [a]', 'doesNotContainAnyOf'],
    ['x NotNull', 'notNull'],
    ['x IN [a]', 'in'],
    ['x Between 2024-01-01..2024-02-01', 'between'],
  ])('matches operators case-insensitively and writes the service spelling: %s', (text, operator) => {
    const expr = parseWhere(text);
    expect(expr.kind === 'term' && expr.operator).toBe(operator);
  });
});

describe('parseWhere: values', () => {
  it.each<[string, WhereValue]>([
    ['Ada', { type: 'word', text: 'Ada' }],
    ['"Ada Lovelace"', { type: 'string', text: 'Ada Lovelace' }],
    ["'Ada Lovelace'", { type: 'string', text: 'Ada Lovelace' }],
    ['"say \\"hi\\" \\\\ bye"', { type: 'string', text: 'say "hi" \\ bye' }],
    ['""', { type: 'string', text: '' }],
    ['"42"', { type: 'string', text: '42' }],
    ['"true"', { type: 'string', text: 'true' }],
    ['42', { type: 'number', text: '42' }],
    ['-7', { type: 'number', text: '-7' }],
    ['-0.25', { type: 'number', text: '-0.25' }],
    ['.5', { type: 'number', text: '.5' }],
    ['1e3', { type: 'number', text: '1e3' }],
    ['007', { type: 'number', text: '007' }],
    ['1.', { type: 'word', text: '1.' }],
    ['0x10', { type: 'word', text: '0x10' }],
    ['true', { type: 'boolean', value: true }],
    ['FALSE', { type: 'boolean', value: false }],
    ['ada@example.com', { type: 'word', text: 'ada@example.com' }],
    ['2024-05-01', { type: 'word', text: '2024-05-01' }],
    ['2024-05-01T10:00:00Z', { type: 'word', text: '2024-05-01T10:00:00Z' }],
    ['rec_9f-x_1', { type: 'word', text: 'rec_9f-x_1' }],
    ['[]', { type: 'list', items: [] }],
    ['[a]', { type: 'list', items: [{ type: 'word', text: 'a' }] }],
    [
      '[a, "b, c", 3, true, and]',
      {
        type: 'list',
        items: [
          { type: 'word', text: 'a' },
          { type: 'string', text: 'b, c' },
          { type: 'number', text: '3' },
          { type: 'boolean', value: true },
          { type: 'word', text: 'and' },
        ],
      },
    ],
    ['2024-01-01..2024-01-31', { type: 'range', start: { type: 'word', text: '2024-01-01' }, end: { type: 'word', text: '2024-01-31' } }],
    ['-5..5', { type: 'range', start: { type: 'number', text: '-5' }, end: { type: 'number', text: '5' } }],
    ['"a b" .. c', { type: 'range', start: { type: 'string', text: 'a b' }, end: { type: 'word', text: 'c' } }],
  ])('%s', (text, expected) => {
    expect(value(text)).toEqual(expected);
  });

  it.each([
    ['"Full Name" = x', 'Full Name'],
    ["'Full Name' = x", 'Full Name'],
    ['fld_abc-123 = x', 'fld_abc-123'],
    ['"say \\"x\\"" = x', 'say "x"'],
    ['Lead score > 90', 'Lead score'],
    ['Last  Contacted isDatePreset today', 'Last  Contacted'],
    ['Is VIP = true', 'Is VIP'],
  ])('column reference %s', (text, column) => {
    const expr = parseWhere(text);
    expect(expr.kind === 'term' && expr.column).toBe(column);
  });
});

describe('parseWhere: errors point at the place', () => {
  it.each<[string, number, RegExp]>([
    ['', 0, /the expression is empty/],
    ['   ', 3, /the expression is empty/],
    ['Name', 4, /expected an operator after the column "Name"/],
    ['Name contians Ada', 5, /unknown operator "contians"/],
    ['Name == Ada', 5, /unknown operator "=="/],
    ['Name =', 6, /= needs a value/],
    ['Name = and Age > 3', 7, /= needs a value/],
    ['Name contains )', 14, /contains needs a value/],
    ['Name null Ada', 10, /null takes no value/],
    ['Name hasError "x"', 14, /hasError takes no value/],
    ['Name isNotFound [a]', 16, /isNotFound takes no value/],
    ['Name = Ada Lovelace', 11, /unexpected "Lovelace" after "Ada"/],
    ['Name = Ada and', 14, /expected a condition after "and", got the end/],
    ['and', 3, /expected an operator/],
    ['= 5', 0, /expected a condition, got "="/],
    ['(Name = Ada', 11, /missing \) to close the \( at character 1/],
    ['(Name = Ada ]', 12, /unexpected "\]" after "Ada"/],
    ['Name = Ada)', 10, /this \) has no matching \(/],
    ['(Name = Ada) x', 13, /unexpected "x" after "\)"/],
    ['() ', 1, /expected a condition after "\(", got "\)"/],
    ['t in [a, b', 10, /missing \] to close the list \[ at character 6/],
    ['t in [', 6, /missing \] to close the list \[ at character 6/],
    ['t in [a b]', 8, /expected , or \] in the list, got "b"/],
    ['t in [a,, b]', 8, /expected a value, got ","/],
    ['t in [a, [b]]', 9, /lists cannot be nested/],
    ['t in [a..b]', 7, /a range START..END cannot be a list item/],
    ['t in [a]..b', 8, /a list cannot be part of a range/],
    ['d between ..b', 10, /the range needs a start/],
    ['d between a..', 13, /the range needs an end/],
    ['d between a..[b]', 13, /a list cannot be part of a range/],
    ['d between a..b..c', 14, /a range has a single \.\./],
    ['x = "open', 4, /never closed/],
    ['x =! y', 2, /unknown operator "=!"/],
    ['x = !', 4, /expected a value, got "!"/],
  ])('%j', (text, position, message) => {
    const error = catchFilterError(() => parseWhere(text));
    expect(error.message).toMatch(message);
    expect(error.location).toMatchObject({ source: '--where', expression: text, position });
  });

  it.each([
    ['Name == Ada', 'use ='],
    ['Name contians Ada', 'did you mean "contains"?'],
    ['Name is null', 'use null or notNull'],
    ['Full Name Ada', 'operators:'],
    ['Name = and', 'quote it: "and"'],
    ['Name = Ada Lovelace', 'quote a value that has spaces'],
    ['Name constructor x', 'operators: = != >'],
  ])('gives a hint: %s', (text, hint) => {
    expect(catchFilterError(() => parseWhere(text)).hint).toContain(hint);
  });

  it('marks the place with the character number and a caret line', () => {
    const error = catchFilterError(() => parseWhere('Name contians Ada'));
    expect(error.message).toBe(
      ['--where: unknown operator "contians" (at character 6):', '  Name contians Ada', '       ^^^^^^^^'].join('\n'),
    );
  });

  it('cuts long text in the message', () => {
    const error = catchFilterError(() => parseWhere(`Name ${'o'.repeat(5_000)} x`));
    expect(error.problem).toBe(`unknown operator "${'o'.repeat(60)}…"`);
    expect(error.message.length).toBeLessThan(400);
  });

  it('rejects parentheses nested deeper than the guard without overflowing the stack', () => {
    const text = `${'('.repeat(10_000)}a = 1${')'.repeat(10_000)}`;
    expect(catchFilterError(() => parseWhere(text)).message).toContain('nested too deeply');
  });

  it('accepts a long flat chain', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `c${i} = ${i}`).join(' and ');
    const expr = parseWhere(text);
    expect(expr.kind === 'and' && expr.items.length).toBe(2_000);
  });
});

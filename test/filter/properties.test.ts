import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFilters } from '../../src/filter/build.js';
import { FilterError } from '../../src/filter/errors.js';
import { booleanOf, parseWhere, type WhereExpr, type WhereTerm, type WhereValue } from '../../src/filter/parser.js';
import { valueKind } from '../../src/filter/problems.js';
import { resolveColumn } from '../../src/filter/resolve.js';
import { validateQuery } from '../../src/filter/validate.js';
import {
  DATE_PRESETS,
  OPERATORS,
  VALUELESS_OPERATORS,
  acceptedOperators,
  isFilterGroup,
  type Field,
  type FilterGroup,
  type FilterRule,
  type Operator,
} from '../../src/service/index.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';
import { printWhere, withoutPositions } from './print.js';

// FILTER_RUNS=30000 searches longer (about 15 s); the default keeps this file to a second or two.
const RUNS = { numRuns: Number(process.env.FILTER_RUNS ?? 1_000) };

/** Runs fn; passes if it returns or throws a FilterError, fails on anything else thrown. */
function onlyFilterErrors<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (error instanceof FilterError) return undefined;
    throw error;
  }
}

// Pieces of the grammar, so random text reaches deep into the parser rather than failing at once.
const PIECES = [
  '(',
  ')',
  '[',
  ']',
  ',',
  '..',
  '.',
  '"',
  "'",
  '\\',
  ' ',
  '\t',
  '\n',
  'and',
  'or',
  'AND',
  '=',
  '!=',
  '!',
  '>=',
  '<',
  '==',
  'Name',
  '"Signed up"',
  'Age',
  'Stage',
  'Email',
  'fld_tags',
  'contains',
  'in',
  'null',
  'between',
  'isDatePreset',
  'containsAnyOf',
  'hasError',
  'today',
  '5',
  '-1.5',
  '1e999',
  'true',
  '2024-05-01',
  '2024-05-01T10:00:00Z',
  'Lead',
  'x',
  '\u{1F600}',
  '\uD800',
  'é',
];
const soup = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((pieces) => pieces.join(''));
const spacedSoup = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((pieces) => pieces.join(' '));
const anyText = fc.string({
  unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom(...PIECES)),
  maxLength: 60,
});

describe('parseWhere never throws anything but FilterError', () => {
  it.each([
    ['arbitrary text', anyText],
    ['pieces of the grammar', soup],
    ['spaced pieces of the grammar', spacedSoup],
  ])('%s', (_name, text) => {
    fc.assert(
      fc.property(text, (input) => void onlyFilterErrors(() => parseWhere(input))),
      RUNS,
    );
  });

  it('nor does buildFilters, and what it builds passes validateQuery', () => {
    // Pieces of the grammar alone almost never build a filter (not once in 1,000 runs), which would leave
    // validateQuery unchecked: well-formed conditions with a piece put in somewhere build now and then.
    const wellFormed = exprArbitrary(fc.constantFrom(...fields).chain(fittingTerm)).map(printWhere);
    const nearlyWellFormed = fc
      .tuple(wellFormed, fc.constantFrom(...PIECES), fc.nat())
      .map(([text, piece, at]) => `${text.slice(0, at % (text.length + 1))}${piece}${text.slice(at % (text.length + 1))}`);
    const where = fc.oneof(
      fc.array(fc.oneof(soup, spacedSoup), { minLength: 1, maxLength: 3 }),
      fc.array(fc.oneof(wellFormed, nearlyWellFormed), { minLength: 1, maxLength: 3 }),
    );
    let built = 0;
    fc.assert(
      fc.property(where, fc.boolean(), (texts, any) => {
        const filters = onlyFilterErrors(() => buildFilters({ where: texts, any, fields }));
        if (filters === undefined) return;
        built += 1;
        validateQuery({ filters }, fields);
      }),
      RUNS,
    );
    expect(built).toBeGreaterThan(RUNS.numRuns / 20);
  });
});

// Random ASTs: words are the bare words a person would write (no keyword, number or boolean).
const word = fc
  .stringMatching(/^[A-Za-z_@][A-Za-z0-9_@:+.'-]{0,12}$/)
  .filter((text) => !text.includes('..') && !text.endsWith('.') && booleanOf(text) === undefined && !/^(and|or)$/i.test(text));
const scalar: fc.Arbitrary<WhereValue> = fc.oneof(
  word.map((text) => ({ type: 'word' as const, text })),
  fc.string({ unit: 'binary', maxLength: 20 }).map((text) => ({ type: 'string' as const, text })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => ({ type: 'number' as const, text: String(n) })),
  fc.integer().map((n) => ({ type: 'number' as const, text: String(n) })),
  fc.boolean().map((value) => ({ type: 'boolean' as const, value })),
);
const value: fc.Arbitrary<WhereValue> = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 4 }).map((items) => ({ type: 'list' as const, items })),
  fc.tuple(scalar, scalar).map(([start, end]) => ({ type: 'range' as const, start, end })),
);

function termArbitrary(
  column: fc.Arbitrary<string>,
  operatorValue: fc.Arbitrary<WhereValue>,
  operators: fc.Arbitrary<Operator> = fc.constantFrom(...OPERATORS),
): fc.Arbitrary<WhereExpr> {
  return fc.tuple(column, operators, operatorValue).map(([col, operator, val]) => {
    const term: WhereTerm = { kind: 'term', column: col, columnPos: 0, operator, operatorPos: 0, valuePos: 0 };
    if (!VALUELESS_OPERATORS.includes(operator)) term.value = val;
    return term;
  });
}

/** Terms and groups; groups nest at most 4 deep, within the service's 5 levels. */
function exprArbitrary(term: fc.Arbitrary<WhereExpr>): fc.Arbitrary<WhereExpr> {
  const { expr } = fc.letrec<{ expr: WhereExpr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
      term,
      fc.record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        items: fc.array(tie('expr'), { minLength: 2, maxLength: 4 }),
        pos: fc.constant(0),
      }),
    ),
  }));
  return expr;
}

// Conditions that suit their column: a reference that resolves to it, an operator it accepts,
// a value of the operator's shape and the column's type.
function fittingTerm(field: Field): fc.Arbitrary<WhereExpr> {
  const refs = [field.id, field.label, field.name].filter((ref) => onlyFilterErrors(() => resolveColumn(ref, fields)) === field);
  const options = (field.options ?? []).flatMap((option) => [option.label, option.value]);
  const text = options.length > 0 ? fc.constantFrom(...options).map((t) => ({ type: 'string' as const, text: t })) : scalar;
  const date = fc
    .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
    .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10)))
    .map((t) => ({ type: 'word' as const, text: t }));
  const typed: Partial<Record<Field['type'], fc.Arbitrary<WhereValue>>> = {
    number: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => ({ type: 'number' as const, text: String(n) })),
    boolean: fc.boolean().map((b) => ({ type: 'boolean' as const, value: b })),
    date,
  };
  const byKind = (operator: Operator): fc.Arbitrary<WhereValue> => {
    switch (valueKind(operator)) {
      case 'list':
      case 'anyOfList':
        return fc.array(text, { maxLength: 20 }).map((items) => ({ type: 'list' as const, items }));
      case 'preset':
        return fc.constantFrom(...DATE_PRESETS).map((preset) => ({ type: 'word' as const, text: preset.toUpperCase() }));
      case 'range':
        return fc.tuple(date, date).map(([start, end]) => ({ type: 'range' as const, start, end }));
      default:
        return typed[field.type] ?? text;
    }
  };
  return fc
    .tuple(fc.constantFrom(...refs), fc.constantFrom(...acceptedOperators(field.type, true)))
    .chain(([column, operator]) => termArbitrary(fc.constant(column), byKind(operator), fc.constant(operator)));
}

describe('printing a random AST and parsing it back gives the same AST', () => {
  it('round-trips', () => {
    const ast = exprArbitrary(termArbitrary(fc.string({ unit: 'binary', minLength: 0, maxLength: 12 }), value));
    fc.assert(
      fc.property(ast, (expr) => {
        expect(withoutPositions(parseWhere(printWhere(expr)))).toEqual(withoutPositions(expr));
      }),
      RUNS,
    );
  });
});

const termCount = (expr: WhereExpr): number => (expr.kind === 'term' ? 1 : expr.items.reduce((sum, item) => sum + termCount(item), 0));
const ruleCount = (entry: FilterGroup | FilterRule | undefined): number =>
  entry === undefined ? 0 : isFilterGroup(entry) ? entry.rules.reduce((sum, item) => sum + ruleCount(item), 0) : 1;

describe('well-formed conditions', () => {
  it('builds every well-formed condition, and validateQuery accepts what it builds', () => {
    const ast = exprArbitrary(fc.constantFrom(...fields).chain(fittingTerm));
    fc.assert(
      fc.property(ast, fc.boolean(), (expr, any) => {
        const where = printWhere(expr);
        const filters = buildFilters({ where: [where, 'Age notNull'], any, fields });
        // every condition becomes one rule, under the combinator of the --where list, the second --where last
        expect(filters?.combinator).toBe(any ? 'or' : 'and');
        expect(filters?.rules.at(-1)).toEqual({ fieldId: 'fld_age', operator: 'notNull' });
        expect(ruleCount(filters)).toBe(termCount(expr) + 1);
        validateQuery({ filters, q: 'x' }, fields);
      }),
      RUNS,
    );
  });
});

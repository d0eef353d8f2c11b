import { describe, expect, it } from 'vitest';
import { TdsError, UsageError } from '../../../src/core/errors.js';
import { foldKey, keyColumn, type KeyColumn } from '../../../src/push/key/key-column.js';
import { acceptedOperators, COLUMN_TYPES, type ColumnType, type Field } from '../../../src/service/index.js';

const field = (id: string, label: string, name: string, type: ColumnType = 'text'): Field => ({
  id,
  name,
  label,
  type,
  options: null,
  isSystem: false,
});

const FIELDS: Field[] = [
  field('f1', 'Email', 'email', 'email'),
  field('f2', 'Name', 'full_name'),
  field('f3', 'Company', 'company'),
  field('f4', 'Company', 'company_2'),
  // a label that is another column's ID
  field('f5', 'f2', 'odd', 'number'),
  field('f6', 'Done', 'done', 'boolean'),
];

function usageError(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('keyColumn', () => {
  it('finds the column by ID, then label, then name', () => {
    expect(keyColumn(FIELDS, 'f1').field.id).toBe('f1');
    expect(keyColumn(FIELDS, 'Email').field.id).toBe('f1');
    expect(keyColumn(FIELDS, 'full_name').field.id).toBe('f2');
    expect(keyColumn(FIELDS, 'Name').field.id).toBe('f2');
    // an ID wins over a label equal to it
    expect(keyColumn(FIELDS, 'f2').field.id).toBe('f2');
    // a label wins over another column's name
    expect(keyColumn([field('a', 'x', 'y'), field('b', 'y', 'x')], 'x').field.id).toBe('a');
  });

  it('names the columns that share a label, and asks for an ID', () => {
    const error = usageError(() => keyColumn(FIELDS, 'Company'));
    expect(error.message).toContain('"Company"');
    expect(error.message).toContain('2 columns');
    expect(error.message).toContain('f3, f4');
    expect(error.hint).toContain('COLUMN_ID');
    expect(error.exitCode).toBe(2);
    // by ID or name each one can still be chosen
    expect(keyColumn(FIELDS, 'f4').field.id).toBe('f4');
    expect(keyColumn(FIELDS, 'company_2').field.id).toBe('f4');
  });

  it('refuses an unknown column', () => {
    const error = usageError(() => keyColumn(FIELDS, 'Nope'));
    expect(error.message).toContain('no column "Nope"');
    expect(error.hint).toContain('tds schema');
    // case matters
    expect(() => keyColumn(FIELDS, 'email address')).toThrow(UsageError);
    expect(() => keyColumn([], 'x')).toThrow(/no column "x"/);
  });

  it('refuses a name two columns share', () => {
    expect(() => keyColumn([field('a', 'A', 'same'), field('b', 'B', 'same')], 'same')).toThrow(/no column "same"/);
  });

  it.each<[ColumnType, KeyColumn['operator']]>([
    ['text', 'in'],
    ['select', 'in'],
    ['url', 'any'],
    ['image', 'any'],
    ['formula', 'any'],
    ['email', 'eq'],
    ['phone_number', 'eq'],
    ['number', 'eq'],
  ])('looks %s keys up with `%s`', (type, operator) => {
    expect(keyColumn([field('k', 'K', 'k', type)], 'K')).toEqual({ field: field('k', 'K', 'k', type), operator });
  });

  it('chooses an operator the column type accepts (docs/service-api.md 4.5)', () => {
    const name = { in: 'in', any: 'containsAnyOf', eq: '=' } as const;
    let keyTypes = 0;
    for (const type of COLUMN_TYPES) {
      let column: KeyColumn;
      try {
        column = keyColumn([field('k', 'K', 'k', type)], 'k');
      } catch {
        continue;
      }
      expect(acceptedOperators(type)).toContain(name[column.operator]);
      keyTypes += 1;
    }
    expect(keyTypes).toBe(8);
  });

  it.each<ColumnType>(['boolean', 'date', 'multi_select', 'object', 'action', 'webhook', 'member', 'input'])(
    'refuses a %s column, which cannot hold a key',
    (type) => {
      const error = usageError(() => keyColumn([field('k', 'Key', 'k', type)], 'Key'));
      expect(error.message).toContain(`of type ${type}`);
      expect(error.message).toContain('"Key"');
      expect(error.hint).toContain('text');
      expect(error).toBeInstanceOf(TdsError);
    },
  );
});

describe('foldKey', () => {
  const text = keyColumn([field('k', 'K', 'k', 'text')], 'k');
  const email = keyColumn([field('k', 'K', 'k', 'email')], 'k');
  const number = keyColumn([field('k', 'K', 'k', 'number')], 'k');

  it('ignores case for text-like columns', () => {
    expect(foldKey(text, 'ABC-Def')).toBe('abc-def');
    expect(foldKey(email, 'Ann@Example.COM')).toBe('ann@example.com');
    expect(foldKey(text, 'ÄÖÜ')).toBe('äöü');
    // only case: spaces and number text stay as they are
    expect(foldKey(text, ' 1.50 ')).toBe(' 1.50 ');
    expect(foldKey(text, 'a') === foldKey(text, 'A')).toBe(true);
  });

  it.each([
    ['1.50', '1.5'],
    ['1.5', '1.5'],
    ['01', '1'],
    [' 42 ', '42'],
    ['1e3', '1000'],
    ['1000.000', '1000'],
    ['-0', '0'],
    ['-2.50', '-2.5'],
  ])('makes the number %j canonical (%j)', (key, folded) => {
    expect(foldKey(number, key)).toBe(folded);
  });

  it('leaves a number column key that is not a number as it is', () => {
    expect(foldKey(number, 'abc')).toBe('abc');
    expect(foldKey(number, '1e400')).toBe('1e400');
  });
});

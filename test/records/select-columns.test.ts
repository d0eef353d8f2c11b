import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { keyFields } from '../../src/records/column-keys.js';
import { selectColumns } from '../../src/records/select-columns.js';
import { fields } from './fixtures.js';

const keyed = keyFields(fields, 'label');
const pick = (refs: string[]): string[] => selectColumns(refs, keyed).map((column) => column.field.id);

describe('selectColumns (--columns)', () => {
  it.each([
    [['Name'], ['f_name']], // label
    [['full_name'], ['f_name']], // name
    [
      ['f_stage', 'Name'],
      ['f_stage', 'f_name'],
    ], // ID, and the order given
    [['Email'], ['f_email']], // the key "Email" is the first of the two
    [['Email (2)'], ['f_email2']], // a disambiguated key
    [['_id'], ['f_ext']], // the label of the column keyed "_id (2)"
    [
      ['email_2', 'Value (3)'],
      ['f_email2', 'f_v2'],
    ],
  ])('%j → %j', (refs, ids) => expect(pick(refs)).toEqual(ids));

  it('lists the columns when a reference matches none', () => {
    expect(() => pick(['Nope'])).toThrow(UsageError);
    expect(() => pick(['Nope'])).toThrow(/no column "Nope"; the columns are: "_id \(2\)" \(f_ext\), "Name" \(f_name\)/);
  });

  it('refuses a column named twice', () => {
    expect(() => pick(['Name', 'full_name'])).toThrow(/more than once/);
  });

  it('refuses a label shared by columns when no key matches it, listing the candidates', () => {
    const byName = keyFields(fields, 'name');
    expect(() => selectColumns(['Email'], byName)).toThrow(
      /the label "Email" belongs to 2 columns: "email" \(f_email\), "email_2" \(f_email2\)/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { resolveColumn } from '../../src/filter/resolve.js';
import { catchFilterError } from './catch-filter-error.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';

describe('resolveColumn', () => {
  it.each([
    ['fld_age', 'fld_age', 'an ID'],
    ['Age', 'fld_age', 'a label'],
    ['age', 'fld_age', 'a name'],
    ['Signed up', 'fld_signup', 'a label with a space'],
    ['signup_date', 'fld_signup', 'a name'],
    ['work_email', 'fld_work_email', 'the name of a column whose label is shared'],
    ['fld_name', 'fld_name', 'an ID before a label equal to it'],
    ['rank', 'fld_rank_label', 'a label before a name equal to it'],
    ['Created at', 'fld_created', 'a system column'],
  ])('%s → %s (%s)', (ref, id) => {
    expect(resolveColumn(ref, fields).id).toBe(id);
  });

  it('names the candidate IDs and names of an ambiguous label', () => {
    const error = catchFilterError(() => resolveColumn('Email', fields));
    expect(error.message).toBe('column label "Email" is shared by 2 columns: fld_email (name: email), fld_work_email (name: work_email)');
    expect(error.hint).toContain('by its ID');
  });

  it.each([
    ['Nmae', 'did you mean "Name"?'],
    ['signup_dat', 'did you mean "signup_date"?'],
    ['zzzzzz', '`tds schema TABLE` lists the columns'],
    ['', '`tds schema TABLE` lists the columns'],
    ['age ', '"age"'],
  ])('an unknown column %j is an error with a hint', (ref, hint) => {
    const error = catchFilterError(() => resolveColumn(ref, fields));
    expect(error.message).toBe(`unknown column "${ref}"`);
    expect(error.hint).toContain(hint);
  });

  it('matches exactly: case differs → unknown, with a suggestion', () => {
    expect(catchFilterError(() => resolveColumn('AGE', fields)).hint).toContain('did you mean');
  });
});

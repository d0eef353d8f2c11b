import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { keyFields } from '../../src/records/column-keys.js';
import { planRecord, selectColumns, statusFieldIds } from '../../src/records/record-plan.js';
import type { ShapeOptions } from '../../src/records/shape-options.js';
import { RECORD_FIELDS as fields } from '../helpers/schemas.js';

const base: ShapeOptions = { header: 'label', meta: true, system: true, cells: 'value', statusColumns: false };

describe('planRecord', () => {
  it('puts the meta keys first, then every column in schema order', () => {
    const plan = planRecord(fields, base);
    expect(plan.keys.slice(0, 6)).toEqual(['_id', '_createdAt', '_updatedAt', '_createdByUserId', '_id (2)', 'Name']);
    expect(plan.keys).toHaveLength(4 + fields.length);
  });

  it('--no-meta and --no-system leave those out; keys of the rest do not change', () => {
    const plan = planRecord(fields, { ...base, meta: false, system: false });
    expect(plan.keys[0]).toBe('_id (2)');
    expect(plan.keys).not.toContain('Created At');
    expect(plan.keys).toHaveLength(fields.length - 1);
  });

  it('--columns picks and orders; an explicitly named system column stays even with --no-system', () => {
    const plan = planRecord(fields, { ...base, meta: false, system: false, columns: ['Created At', 'Stage'] });
    expect(plan.keys).toEqual(['Created At', 'Stage']);
  });

  it('--status-columns adds <key>.status and <key>.error after each status column', () => {
    const plan = planRecord(
      fields,
      { ...base, meta: false, columns: ['Name', 'Enrich', 'Stage'], statusColumns: true },
      new Set(['f_enrich']),
    );
    expect(plan.keys).toEqual(['Name', 'Enrich', 'Enrich.status', 'Enrich.error', 'Stage']);
  });

  it('a column labelled like a status key yields it to the action column, with or without --status-columns', () => {
    const withClash = [...fields, { ...fields[1]!, id: 'f_clash', label: 'Enrich.status' }];
    const picked = { ...base, meta: false, columns: ['Enrich', 'f_clash'] };
    expect(planRecord(withClash, { ...picked, statusColumns: true }, statusFieldIds(withClash)).keys).toEqual([
      'Enrich',
      'Enrich.status',
      'Enrich.error',
      'Enrich.status (2)',
    ]);
    expect(planRecord(withClash, picked).keys).toEqual(['Enrich', 'Enrich.status (2)']);
  });
});

describe('statusFieldIds', () => {
  it('takes the action columns, from the schema alone', () => {
    const webhook = { ...fields[1]!, id: 'f_hook', type: 'webhook' as const };
    expect([...statusFieldIds([...fields, webhook])]).toEqual(['f_enrich']);
  });
});

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

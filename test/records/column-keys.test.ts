import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldKey, keyFields, KeySet, RESERVED_KEYS, type KeyedField } from '../../src/records/column-keys.js';
import { planRecord, statusFieldIds } from '../../src/records/record-plan.js';
import type { ShapeOptions } from '../../src/records/shape-options.js';
import { typedPlan } from '../../src/records/typed-plan.js';
import type { Field } from '../../src/service/index.js';
import { RECORD_FIELDS as fields } from '../helpers/schemas.js';

const column = (label: string, type: Field['type'] = 'text', i = 0): Field => ({
  id: `f${i}`,
  name: `n${i}`,
  label,
  type,
  options: null,
  isSystem: false,
});
/** `label` a text column, `label!` an action column. */
const schema = (specs: string[]): Field[] =>
  specs.map((spec, i) => (spec.endsWith('!') ? column(spec.slice(0, -1), 'action', i) : column(spec, 'text', i)));
/** Every key a column has: its key, then its status and error keys. */
const allKeys = (keyed: readonly KeyedField[]): string[] =>
  keyed.flatMap((each) => [each.key, ...(each.statusKey ? [each.statusKey, each.errorKey!] : [])]);

describe('foldKey and KeySet', () => {
  it.each([
    ['Email', 'email'],
    ['ÉCOLE', 'école'],
    ['ΟΔΟΣ', 'οδοσ'], // each letter on its own: no final sigma, so `ΟΔΟΣ.status` folds to `οδοσ.status`
  ])('%j folds to %j', (key, folded) => expect(foldKey(key)).toBe(folded));

  it('the fold of a key and a suffix is the fold of each put together', () => {
    expect(foldKey('ΟΔΟΣ.status')).toBe(`${foldKey('ΟΔΟΣ')}.status`);
  });

  it('holds a key once, ignoring case', () => {
    const set = new KeySet(['Email']);
    expect(set.has('EMAIL')).toBe(true);
    expect(set.add('email')).toBe(false);
    expect(set.add('Email (2)')).toBe(true);
  });
});

describe('keyFields', () => {
  it('keys by label: later duplicates and meta-key collisions get (2), (3) in schema order', () => {
    expect(keyFields(fields, 'label').map((each) => each.key)).toEqual([
      '_id (2)',
      'Name',
      'Email',
      'Email (2)',
      'Value',
      'Value (3)', // "Value (2)" is the label of a later column, which keeps it
      'Value (2)',
      'Stage',
      'Tags',
      'Address',
      'Enrich',
      'Created At',
    ]);
  });

  it('keys by name or ID', () => {
    expect(
      keyFields(fields, 'name')
        .map((each) => each.key)
        .slice(0, 4),
    ).toEqual(['external_id', 'full_name', 'email', 'email_2']);
    expect(keyFields(fields, 'id').map((each) => each.key)).toEqual(fields.map((field) => field.id));
  });

  // Each case: the schema (`X!` an action column) and every key it gets, status and error keys included.
  it.each<[string, string[], string[]]>([
    ['labels that differ only in case', ['Email', 'email', 'EMAIL'], ['Email', 'email (2)', 'EMAIL (3)']],
    ['a label equal to a meta key ignoring case', ['_ID', '_createdat'], ['_ID (2)', '_createdat (2)']],
    ['the generated key _truncated', ['_truncated', '_Truncated'], ['_truncated (2)', '_Truncated (3)']],
    ['the generated key _syncId', ['_SYNCID'], ['_SYNCID (2)']],
    ['an action column has status and error keys', ['Enrich!'], ['Enrich', 'Enrich.status', 'Enrich.error']],
    [
      'a label equal to an action column’s status key, before or after it',
      ['enrich.STATUS', 'Enrich!', 'Enrich.error'],
      ['enrich.STATUS (2)', 'Enrich', 'Enrich.status', 'Enrich.error', 'Enrich.error (2)'],
    ],
    [
      'a column whose status keys another column has takes a suffix for all three',
      ['Enrich', 'Enrich (2).status', 'enrich!'],
      ['Enrich', 'Enrich (2).status', 'enrich (3)', 'enrich (3).status', 'enrich (3).error'],
    ],
    [
      'status keys of status keys: the shortest label keeps its keys, then the next',
      ['A.status.status', 'A.status!', 'A!'],
      ['A.status.status', 'A.status (2)', 'A.status (2).status', 'A.status (2).error', 'A', 'A.status', 'A.error'],
    ],
    ['labels that already look disambiguated', ['a', 'A (2)', 'a'], ['a', 'A (2)', 'a (3)']],
    ['prototype names are labels like any other', ['__proto__', 'constructor', 'toString'], ['__proto__', 'constructor', 'toString']],
    [
      "the history's and the lake's generated keys (docs/cli.md) are reserved in every output",
      ['_replacedBy', '_CHANGE', '_replacedAt', '_valid_from', '_valid_to', '_syncId'],
      ['_replacedBy (2)', '_CHANGE (2)', '_replacedAt (2)', '_valid_from (2)', '_valid_to (2)', '_syncId (2)'],
    ],
  ])('%s', (_name, specs, expected) => {
    expect(allKeys(keyFields(schema(specs), 'label'))).toEqual(expected);
  });

  it('gives a column of a reserved key (a removed field the mirror keeps) another key, with its status keys', () => {
    const keyed = keyFields(schema(['Enrich!', 'Score']), 'label', ['ENRICH.status', 'score']);
    expect(allKeys(keyed)).toEqual(['Enrich (2)', 'Enrich (2).status', 'Enrich (2).error', 'Score (2)']);
  });
});

// Labels drawn from few letters, so that they often meet: case, suffixes, reserved and generated keys.
const labelArb = fc.oneof(
  fc.constantFrom(...RESERVED_KEYS, '__proto__', 'constructor', 'toString', 'E', 'e', 'E (2)', 'e.status', 'E.error', 'ς', 'Σ'),
  fc
    .array(fc.constantFrom('E', 'e', 'Σ', 'σ', '.status', '.ERROR', ' (2)', '_id'), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join('')),
);
const schemaArb = fc
  .array(fc.record({ label: labelArb, action: fc.boolean(), system: fc.boolean() }), { minLength: 1, maxLength: 12 })
  .map((specs) => specs.map((spec, i): Field => ({ ...column(spec.label, spec.action ? 'action' : 'text', i), isSystem: spec.system })));
const shapeArb = fc.record({
  meta: fc.boolean(),
  system: fc.boolean(),
  statusColumns: fc.boolean(),
  cells: fc.constant('value' as const),
  header: fc.constant('label' as const),
});

describe('keyFields: properties', () => {
  it('every key, status and error keys and the reserved keys included, is unique ignoring case', () => {
    fc.assert(
      fc.property(schemaArb, (schema) => {
        const keys = [...RESERVED_KEYS, ...allKeys(keyFields(schema, 'label'))];
        expect(new Set(keys.map(foldKey)).size).toBe(keys.length);
      }),
    );
  });

  it('a column keeps its label when nothing else has it (ignoring case) and it is no reserved or status key', () => {
    fc.assert(
      fc.property(schemaArb, (schema) => {
        const keyed = keyFields(schema, 'label');
        const statusOf = new KeySet(
          keyed.flatMap((each) => (each.key === each.field.label && each.statusKey ? [each.statusKey, each.errorKey!] : [])),
        );
        for (const each of keyed) {
          const label = each.field.label;
          const alone = schema.filter((field) => foldKey(field.label) === foldKey(label)).length === 1;
          if (alone && !new KeySet(RESERVED_KEYS).has(label) && !statusOf.has(label)) expect(each.key).toBe(label);
        }
      }),
    );
  });

  it('a column has the same keys in an export under any flags, in Parquet and in the mirror', () => {
    fc.assert(
      fc.property(schemaArb, shapeArb, fc.array(fc.nat(), { maxLength: 5 }), (schema, shape, picks) => {
        const keyed = keyFields(schema, 'label');
        const byId = new Map(keyed.map((each) => [each.field.id, each]));
        const columns = [...new Set(picks.map((pick) => schema[pick % schema.length]!.id))];
        const options: ShapeOptions = { ...shape, ...(columns.length > 0 ? { columns } : {}) };
        for (const planned of planRecord(schema, options, statusFieldIds(schema)).columns) {
          const whole = byId.get(planned.field.id)!;
          expect(planned.key).toBe(whole.key);
          if (shape.statusColumns) expect([planned.statusKey, planned.errorKey]).toEqual([whole.statusKey, whole.errorKey]);
        }
        const typed = typedPlan(schema, { header: 'label' }).filter((each) => each.field !== undefined);
        expect(typed.map((each) => each.key)).toEqual(allKeys(keyed));
      }),
    );
  });
});

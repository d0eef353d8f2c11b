import { describe, expect, it } from 'vitest';
import { keyFields } from '../../src/records/column-keys.js';
import { uniqueKey } from '../../src/records/unique-key.js';
import { fields } from './fixtures.js';

describe('uniqueKey', () => {
  it.each([
    [[], 'A', 'A'],
    [['A'], 'A', 'A (2)'],
    [['A', 'A (2)'], 'A', 'A (3)'],
    [['A (2)'], 'A', 'A'],
    [['_id'], '_id', '_id (2)'],
  ])('taken %j, base %j → %j', (taken, base, expected) => {
    const set = new Set(taken);
    expect(uniqueKey(base, set)).toBe(expected);
    expect(set.has(expected)).toBe(true);
  });
});

describe('keyFields', () => {
  it('keys by label: later duplicates and meta-key collisions get (2), (3) in schema order', () => {
    expect(keyFields(fields, 'label').map((column) => column.key)).toEqual([
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
        .map((column) => column.key)
        .slice(0, 4),
    ).toEqual(['external_id', 'full_name', 'email', 'email_2']);
    expect(keyFields(fields, 'id').map((column) => column.key)).toEqual(fields.map((field) => field.id));
  });

  it('gives unique keys whatever the labels', () => {
    const labels = ['a', 'a', 'a (2)', '_id', '_createdAt', 'a (2)', 'a (3)', 'a'];
    const keys = keyFields(
      labels.map((label, i) => ({ ...fields[1]!, id: `f${i}`, label })),
      'label',
    ).map((column) => column.key);
    expect(keys).toHaveLength(labels.length); // one key per column: unique because none is missing
    expect(new Set([...keys, '_id', '_createdAt', '_updatedAt', '_createdByUserId']).size).toBe(keys.length + 4);
  });
});

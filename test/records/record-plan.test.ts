import { describe, expect, it } from 'vitest';
import { planRecord } from '../../src/records/record-plan.js';
import type { ShapeOptions } from '../../src/records/shape-options.js';
import { statusFieldIds } from '../../src/records/status-columns.js';
import { fields } from './fixtures.js';

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

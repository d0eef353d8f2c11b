import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createPageEncoder } from '../../src/output/page-encoder.js';
import type { DataFormat } from '../../src/output/format.js';
import { planRecord } from '../../src/records/record-plan.js';
import { createRowShaper } from '../../src/records/row-shaper.js';
import { TruncationTally } from '../../src/records/truncation-tally.js';
import type { Field } from '../../src/service/index.js';
import { row } from '../helpers/schemas.js';

// Regression: a column labelled `__proto__` lost its values (NDJSON and JSON dropped the key, CSV wrote
// `{}`), and labels such as `constructor` or `toString` must be keys like any other in every format.

const LABELS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const fields: Field[] = LABELS.map((label, i) => ({ id: `f${i}`, name: `n${i}`, label, type: 'text', options: null, isSystem: false }));
const cells = Object.fromEntries(fields.map((field, i) => [field.id, { value: `v${i}` }]));
const expected = Object.fromEntries(LABELS.map((label, i) => [label, `v${i}`]));

function encoded(format: DataFormat): string {
  const plan = planRecord(fields, { header: 'label', meta: false, system: true, cells: 'value', statusColumns: false });
  const record = createRowShaper(plan, 'value')(row('r1', cells), new TruncationTally());
  const encoder = createPageEncoder({ format, keys: plan.keys });
  return Buffer.concat([encoder.prelude(), encoder.encode([record], 0), encoder.epilogue(1)]).toString('utf8');
}

/** Parsed without losing a `__proto__` key: JSON.parse keeps it as an own key. */
const ownEntries = (object: object): Array<[string, unknown]> => Object.entries(object);

describe('records keyed by prototype names', () => {
  it.each(['ndjson', 'json'] as const)('%s has every key, in order, with its value', (format) => {
    const text = encoded(format);
    const parsed = JSON.parse(format === 'json' ? text : text.trim()) as object | object[];
    const record = Array.isArray(parsed) ? parsed[0]! : parsed;
    expect(ownEntries(record)).toEqual(Object.entries(expected));
  });

  it.each(['csv', 'tsv'] as const)('%s has a header of every key and every value', (format) => {
    const rows = parse(encoded(format), { delimiter: format === 'tsv' ? '\t' : ',' }) as string[][];
    expect(rows).toEqual([LABELS, ['v0', 'v1', 'v2', 'v3', 'v4', 'v5']]);
  });
});

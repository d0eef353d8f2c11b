import { describe, expect, it } from 'vitest';
import { cellValue, optionLabels, createRowShaper } from '../../src/records/row-shaper.js';
import { planRecord } from '../../src/records/record-plan.js';
import type { ShapeOptions } from '../../src/records/shape-options.js';
import { TruncationTally } from '../../src/records/truncation-tally.js';
import { RECORD_FIELDS as fields, row } from '../helpers/schemas.js';

const stage = optionLabels(fields.find((field) => field.id === 'f_stage')!);
const tags = optionLabels(fields.find((field) => field.id === 'f_tags')!);

describe('cellValue', () => {
  it.each([
    ['an absent cell', undefined, undefined, null],
    ['a null value', { value: null }, undefined, null],
    ['a number keeps its type', { value: 0 }, undefined, 0],
    ['false keeps its type', { value: false }, undefined, false],
    ['an object', { value: { a: [1] } }, undefined, { a: [1] }],
    ['a cut cell keeps its cut value', { value: 'abc', isTruncated: true, valuePreview: 'abc' }, undefined, 'abc'],
    ['a cut cell without value: its preview', { isTruncated: true, valuePreview: 'pre' }, undefined, 'pre'],
    ['a select value → its label', { value: 'closed_won' }, stage, 'Closed Won'],
    ['a select value no option has stays', { value: 'other' }, stage, 'other'],
    ['multi_select: each item', { value: ['vip', 'x', 3] }, tags, ['VIP', 'x', 3]],
    ['a status-only cell', { status: 'queued' as const }, undefined, null],
  ])('%s', (_name, cell, labels, expected) => expect(cellValue(cell, labels)).toEqual(expected));

  it('has option labels only for select and multi_select columns with options', () => {
    expect(optionLabels(fields[1]!)).toBeUndefined();
    expect(optionLabels({ ...fields[7]!, options: [] })).toBeUndefined();
  });
});

describe('createRowShaper', () => {
  const options: ShapeOptions = { header: 'label', meta: true, system: true, cells: 'value', statusColumns: true };
  const sample = row(
    'r1',
    {
      f_ext: { value: 'EXT-1' },
      f_stage: { value: 'new' },
      f_tags: { value: ['partner'] },
      f_addr: { value: 'x'.repeat(200), isTruncated: true, valuePreview: 'x'.repeat(200) },
      f_enrich: { status: 'failed', errorMessage: { code: 'E1' } },
    },
    { createdByUserId: null },
  );

  it('writes meta keys, every column key (null when empty) and status keys', () => {
    const plan = planRecord(fields, options, new Set(['f_enrich']));
    const tally = new TruncationTally();
    const record = createRowShaper(plan, 'value')(sample, tally);
    expect(Object.keys(record)).toEqual(plan.keys);
    expect(record).toMatchObject({
      _id: 'r1',
      _createdAt: '2024-05-01T10:00:00.000Z',
      _updatedAt: '2024-05-02T11:00:00.000Z',
      _createdByUserId: null,
      '_id (2)': 'EXT-1',
      Name: null,
      Stage: 'New',
      Tags: ['Partner'],
      Enrich: null,
      'Enrich.status': 'failed',
      'Enrich.error': { code: 'E1' },
    });
    expect(tally.toJSON()).toEqual({ service: { Address: 1 }, spreadsheet: {} });
  });

  it('--cells raw writes the whole Cell object (no label mapping), null for an empty cell', () => {
    const plan = planRecord(fields, { ...options, meta: false, columns: ['Stage', 'Name'], statusColumns: false });
    expect(createRowShaper(plan, 'raw')(sample, new TruncationTally())).toEqual({ Stage: { value: 'new' }, Name: null });
  });
});

describe('TruncationTally', () => {
  it('counts per key and kind, sums, survives JSON, and summarises largest first', () => {
    const tally = new TruncationTally();
    tally.note('service', 'Notes');
    tally.note('service', 'Address', 3);
    tally.note('spreadsheet', 'Notes');
    const copy = TruncationTally.fromJSON(JSON.parse(JSON.stringify(tally.toJSON())));
    copy.addAll(tally);
    expect(copy.total).toBe(10);
    expect(copy.summary(32_767)).toEqual([
      '8 cells were cut by the service at 200 characters (the cut text was kept): "Address" 6, "Notes" 2',
      '2 cells were cut at 32,767 characters for spreadsheet programs: "Notes" 2',
    ]);
    expect(new TruncationTally().summary(1)).toEqual([]);
  });
});

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { createPageEncoder, type PageEncoderOptions } from '../../src/output/page-encoder.js';
import { createRecordWriter } from '../../src/output/record-writer.js';
import type { OutputRecord } from '../../src/records/row-shaper.js';
import type { DataFormat } from '../../src/output/format.js';

/** What one createRecordWriter writes for all the records: the reference the pages must reproduce. */
async function writerOutput(records: OutputRecord[], options: PageEncoderOptions, cuts: string[]): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = createRecordWriter(sink, { ...options, columns: options.keys, onCut: (key) => cuts.push(key) });
  for (const record of records) await writer.write(record);
  await writer.end();
  return Buffer.concat(chunks).toString('utf8');
}

/** The pages' output: prelude, each page (split at `cuts`), epilogue. */
function pagedOutput(records: OutputRecord[], options: PageEncoderOptions, splits: number[], cuts: string[]): string {
  const encoder = createPageEncoder(options);
  const parts = [encoder.prelude()];
  let start = 0;
  for (const end of [...splits.filter((at) => at > 0 && at < records.length).sort((a, b) => a - b), records.length]) {
    parts.push(encoder.encode(records.slice(start, end), start, (key) => cuts.push(key)));
    start = end;
  }
  parts.push(encoder.epilogue(records.length));
  return Buffer.concat(parts).toString('utf8');
}

const keys = ['_id', 'Name', 'Count', 'Tags', 'Obj'];
const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('=1+1', '-5', '@x', '\tx', 'a,b', 'q"q', 'line\nline', ''),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const record = fc.record(Object.fromEntries(keys.map((key) => [key, value])) as Record<string, fc.Arbitrary<unknown>>);

describe('createPageEncoder', () => {
  it.each<DataFormat>(['csv', 'tsv', 'ndjson', 'json'])(
    '%s: the pages put together are byte for byte the record writer output (property)',
    async (format) => {
      const delimited = format === 'csv' || format === 'tsv';
      await fc.assert(
        fc.asyncProperty(
          fc.array(record, { maxLength: 12 }),
          fc.array(fc.nat(12), { maxLength: 4 }),
          fc.record({
            bom: fc.boolean(),
            crlf: fc.boolean(),
            join: fc.option(fc.constantFrom('; ', '|'), { nil: undefined }),
            safeFormulas: fc.boolean(),
            maxCellChars: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
          }),
          async (records, splits, csv) => {
            const options: PageEncoderOptions = { format, keys, ...(delimited ? csv : {}) };
            const expectedCuts: string[] = [];
            const cuts: string[] = [];
            expect(pagedOutput(records, options, splits, cuts)).toBe(await writerOutput(records, options, expectedCuts));
            expect(cuts).toEqual(expectedCuts);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it('CSV parsed back by csv-parse equals the records as cell text (property)', async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 20 });
    await fc.assert(
      fc.property(
        fc.array(fc.record({ a: text, b: fc.oneof(text, fc.integer(), fc.constant(null)) }), { maxLength: 20 }),
        fc.boolean(),
        (records, crlf) => {
          const csv = pagedOutput(records, { format: 'csv', keys: ['a', 'b'], bom: true, crlf }, [3, 7], []);
          const expected = records.map((r) => ({ a: r.a, b: r.b === null ? '' : String(r.b) }));
          expect(parse(csv, { columns: true, bom: true, relax_column_count: false })).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('JSON keeps the keys in plan order even when they look like array indexes', () => {
    const encoder = createPageEncoder({ format: 'ndjson', keys: ['_id', '2024', '10', 'Name'] });
    const line = encoder.encode([{ _id: 'r1', '2024': 1, '10': null, Name: 'x' }], 0).toString();
    expect(line).toBe('{"_id":"r1","2024":1,"10":null,"Name":"x"}\n');
  });

  it('JSON array: an empty export is [] and a continued one starts with a comma', () => {
    const encoder = createPageEncoder({ format: 'json', keys: ['a'] });
    expect(Buffer.concat([encoder.prelude(), encoder.epilogue(0)]).toString()).toBe('[]\n');
    expect(encoder.encode([{ a: 1 }], 5).toString()).toBe(',\n{"a":1}');
  });
});

describe('delimited pages equal csv-stringify over the same rows', () => {
  it('for any text, in CSV and TSV, with LF and CRLF (property)', async () => {
    const { stringify } = await import('csv-stringify/sync');
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('', ',', '"', '\t', '\r', '\n', '\r\n', 'a "b", c'));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 8 }), fc.constantFrom('csv', 'tsv'), fc.boolean(), (rows, format, crlf) => {
        const encoder = createPageEncoder({ format: format as DataFormat, keys: ['a', 'b'], crlf });
        const expected = stringify(rows, {
          delimiter: format === 'tsv' ? '\t' : ',',
          record_delimiter: crlf ? '\r\n' : '\n',
          quoted_match: /[\r\n]/,
        });
        expect(
          encoder
            .encode(
              rows.map(([a, b]) => ({ a, b })),
              0,
            )
            .toString('utf8'),
        ).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

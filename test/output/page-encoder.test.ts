import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { createAtomicFile } from '../../src/output/atomic-file.js';
import { type DataFormat, chooseFormat } from '../../src/output/format.js';
import {
  createPageEncoder,
  type PageEncoderOptions,
  createRecordWriter,
  type RecordWriterOptions,
  cellText,
  guardFormula,
} from '../../src/output/page-encoder.js';
import type { OutputRecord } from '../../src/records/row-shaper.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

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

const folder = useTestFolder();

async function render(records: OutputRecord[], options: RecordWriterOptions): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = createRecordWriter(sink, options);
  for (const record of records) await writer.write(record);
  await writer.end();
  return Buffer.concat(chunks).toString('utf8');
}

const records = [
  { _id: 'r1', Name: 'Ada, "the first"', Count: 3, Ok: true, Tags: ['a', 'b'], Obj: { x: 1 }, Empty: null },
  { _id: 'r2', Name: 'line1\nline2', Count: -1.5, Ok: false, Tags: [], Obj: null, Empty: null },
];
const columns = ['_id', 'Name', 'Count', 'Ok', 'Tags', 'Obj', 'Empty'];

describe('createRecordWriter', () => {
  it('writes RFC 4180 CSV: header, quoting, JSON text for non-strings, empty for null', async () => {
    const text = await render(records, { format: 'csv', columns });
    expect(text).toBe(
      '_id,Name,Count,Ok,Tags,Obj,Empty\n' +
        'r1,"Ada, ""the first""",3,true,"[""a"",""b""]","{""x"":1}",\n' +
        'r2,"line1\nline2",-1.5,false,[],,\n',
    );
  });

  it('writes TSV with CRLF, BOM and joined arrays', async () => {
    const text = await render(records.slice(0, 1), { format: 'tsv', columns: ['_id', 'Tags'], crlf: true, bom: true, join: '; ' });
    expect(text).toBe('\ufeff_id\tTags\r\nr1\ta; b\r\n');
  });

  it('quotes a lone LF under CRLF line ends and a lone CR under LF, so the file reads back', async () => {
    const input = [{ a: 'one\ntwo', b: 'x\ry' }];
    for (const crlf of [true, false]) {
      const text = await render(input, { format: 'csv', columns: ['a', 'b'], crlf });
      expect(parse(text, { columns: true })).toEqual(input);
    }
  });

  it('guards formulas and cuts long cells, reporting each cut', async () => {
    const cuts: string[] = [];
    const text = await render([{ a: '=1+1', b: 'x'.repeat(10), c: -5 }], {
      format: 'csv',
      columns: ['a', 'b', 'c'],
      safeFormulas: true,
      maxCellChars: 4,
      onCut: (column) => cuts.push(column),
    });
    expect(text).toBe("a,b,c\n'=1+1,xxxx,-5\n");
    expect(cuts).toEqual(['b']);
  });

  it('writes NDJSON and a JSON array that parse back to the records', async () => {
    const ndjson = await render(records, { format: 'ndjson', columns });
    expect(
      ndjson
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(records);
    expect(JSON.parse(await render(records, { format: 'json', columns }))).toEqual(records);
    expect(await render([], { format: 'json', columns })).toBe('[]\n');
  });

  it('CSV parsed back by csv-parse equals the records (property)', async () => {
    const text = fc.string({ unit: 'binary' });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { maxLength: 20 }), async (rows) => {
        const input = rows.map(([a, b]) => ({ a, b }));
        const csv = await render(input, { format: 'csv', columns: ['a', 'b'] });
        expect(parse(csv, { columns: true, bom: true, relax_column_count: false })).toEqual(input);
      }),
      { numRuns: 200 },
    );
  });
});

describe('cellText and guardFormula', () => {
  it.each([
    [null, ''],
    ['text', 'text'],
    [0, '0'],
    [false, 'false'],
    [{ a: [1] }, '{"a":[1]}'],
  ])('%j → %j', (value, expected) => expect(cellText(value)).toBe(expected));

  it('a spreadsheet locale with a decimal comma: numbers as 3,5', () => {
    expect(cellText(3.5, { decimalComma: true })).toBe('3,5');
    expect(cellText([1.25, 'a'], { decimalComma: true, join: ', ' })).toBe('1,25, a');
    expect(cellText(3.5)).toBe('3.5');
  });

  it('for a spreadsheet (--excel): lists joined with ", ", members by name, objects as JSON; the delimiter quoted', () => {
    const encoder = createPageEncoder({
      format: 'csv',
      keys: ['Tags', 'Owner', 'Address', 'Score'],
      delimiter: ';',
      decimalComma: true,
      spreadsheet: { members: new Set(['Owner']) },
    });
    const record = { Tags: ['SMB', 'Enterprise'], Owner: { id: 'usr_1', name: 'Ana Souza' }, Address: { city: 'Lyon; FR' }, Score: 2.5 };
    expect(encoder.encode([record], 0).toString()).toBe('SMB, Enterprise;Ana Souza;"{""city"":""Lyon; FR""}";2,5\n');
  });

  it.each(['=x', '+x', '-x', '@x', '\tx', '\rx'])('guards %j', (value) => expect(guardFormula(value)).toBe(`'${value}`));
  it('leaves plain text alone', () => expect(guardFormula('plain = text')).toBe('plain = text'));
});

describe('chooseFormat', () => {
  it.each([
    [{ fallback: 'csv' as const }, 'csv'],
    [{ output: 'a.JSONL', fallback: 'csv' as const }, 'ndjson'],
    [{ output: 'a.json', format: 'csv' as const, fallback: 'table' as const }, 'csv'],
    [{ output: '-', fallback: 'table' as const }, 'table'],
  ])('%j → %s', (options, expected) => expect(chooseFormat(options)).toBe(expected));

  it('rejects an unknown extension without --format', () => {
    expect(() => chooseFormat({ output: 'out.xlsx', fallback: 'csv' })).toThrow(/extension/);
  });
});

describe('createAtomicFile', () => {
  it('keeps data under .partial until commit, then renames', async () => {
    const dir = await folder.make('atomic');
    const path = join(dir, 'out.csv');
    const file = await createAtomicFile(path);
    file.stream.write('a,b\n');
    await expect(stat(path)).rejects.toThrow();
    await file.commit();
    expect(await readFile(path, 'utf8')).toBe('a,b\n');
    await expect(stat(`${path}.partial`)).rejects.toThrow();
  });

  it('abandon keeps the partial file and append continues it', async () => {
    const dir = await folder.make('atomic');
    const path = join(dir, 'out.csv');
    const first = await createAtomicFile(path);
    first.stream.write('1\n');
    await first.abandon();
    const second = await createAtomicFile(path, { append: true });
    second.stream.write('2\n');
    await second.commit();
    expect(await readFile(path, 'utf8')).toBe('1\n2\n');
  });
});

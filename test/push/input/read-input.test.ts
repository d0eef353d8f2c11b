import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/push/input/input-record.js';
import type { InputFormat } from '../../../src/push/options.js';
import { readRecords, type ReadOptions } from '../../../src/push/input/read-input.js';

async function read(input: string | Buffer | (string | Buffer)[], options: Partial<ReadOptions> & { format: InputFormat }) {
  const chunks = Array.isArray(input) ? input : [input];
  const reader = readRecords(
    (async function* () {
      yield* chunks;
    })(),
    'in.' + options.format,
    { infer: false, relaxColumns: false, ...options },
  );
  const records: { record: number; value: unknown }[] = [];
  for await (const chunk of reader.records) records.push(...chunk);
  return { records, values: records.map((r) => r.value), stats: reader.stats };
}

async function failure(
  input: string | Buffer | (string | Buffer)[],
  options: Partial<ReadOptions> & { format: InputFormat },
): Promise<InputError> {
  const error = await read(input, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

/** Every way of cutting the bytes of a text in two: records, quotes and characters split across chunks. */
function splits(text: string): Buffer[][] {
  const bytes = Buffer.from(text);
  return Array.from({ length: bytes.length + 1 }, (_, i) => [bytes.subarray(0, i), bytes.subarray(i)]);
}

describe('CSV', () => {
  it('names keys by the header, leaves empty fields out, keeps strings', async () => {
    const { records } = await read('name,email,seats\nAda,ada@x.io,3\nBob,,\n', { format: 'csv' });
    expect(records).toEqual([
      { record: 1, value: { name: 'Ada', email: 'ada@x.io', seats: '3' }, json: '{"name":"Ada","email":"ada@x.io","seats":"3"}' },
      { record: 2, value: { name: 'Bob' }, json: '{"name":"Bob"}' },
    ]);
  });

  it('handles quoted commas, quotes and newlines, CRLF, a BOM and unicode wherever the chunks split', async () => {
    const text = '\uFEFFname,note\r\n"Lovelace, Ada","said ""hi""\r\nthen left"\r\n東京,😀 ok\r\n';
    const expected = [
      { name: 'Lovelace, Ada', note: 'said "hi"\r\nthen left' },
      { name: '東京', note: '😀 ok' },
    ];
    for (const chunks of splits(text)) expect((await read(chunks, { format: 'csv' })).values).toEqual(expected);
  });

  it('accepts mixed line ends and no final newline', async () => {
    expect((await read('a,b\r\n1,2\n3,4', { format: 'csv' })).values).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('gives all-empty rows as empty objects (sent as nothing, counted as skipped) and ignores blank lines', async () => {
    const { records, stats } = await read('a,b\n1,2\n,\n\n3,4\n', { format: 'csv' });
    expect(records.map((r) => [r.record, r.value])).toEqual([
      [1, { a: '1', b: '2' }],
      [2, {}],
      [3, { a: '3', b: '4' }],
    ]);
    expect(stats.records).toBe(3);
  });

  it('reads a header alone, or nothing, as no records', async () => {
    expect((await read('a,b\n', { format: 'csv' })).values).toEqual([]);
    expect((await read('', { format: 'csv' })).values).toEqual([]);
  });

  it('refuses duplicate header names, naming them and their columns', async () => {
    const error = await failure('email,name,email,x,name\n1,2,3,4,5\n', { format: 'csv' });
    expect(error.message).toBe('in.csv: line 1: duplicate column names in the header: "email" (columns 1, 3), "name" (columns 2, 5)');
    expect(error.exitCode).toBe(2);
  });

  it('refuses a ragged row with its record and line number', async () => {
    const error = await failure('a,b,c\n1,2,3\n"x\ny",5,6\n7,8\n', { format: 'csv' });
    expect(error.message).toBe('in.csv: record 3, line 5: the row has 2 fields, the header has 3');
    expect(error.hint).toContain('--relax-columns');
    const longer = await failure('a,b\n1,2\n1,2,3\n', { format: 'csv' });
    expect(longer.place).toEqual({ record: 2, line: 3 });
  });

  it('accepts short and long rows with --relax-columns, counting rows whose extra values were dropped', async () => {
    const { values, stats } = await read('a,b,c\n1,2\n1,2,3,4\n1,2,3,\n', { format: 'csv', relaxColumns: true });
    expect(values).toEqual([
      { a: '1', b: '2' },
      { a: '1', b: '2', c: '3' },
      { a: '1', b: '2', c: '3' },
    ]);
    expect(stats.extraFieldRows).toBe(1);
  });

  it('refuses a stray quote and an unclosed quote with the line', async () => {
    expect((await failure('a,b\n5" screen,2\n', { format: 'csv' })).place.line).toBe(2);
    expect((await failure('a,b\n1,2\n"open,2\n', { format: 'csv' })).place.line).toBe(3);
  });

  it('infers numbers and booleans with --types infer', async () => {
    expect((await read('zip,n,f,ok,t\n00123,42,1.5,true,hello\n', { format: 'csv', infer: true })).values).toEqual([
      { zip: '00123', n: 42, f: 1.5, ok: true, t: 'hello' },
    ]);
  });

  it('nests keys with --nest and reports a conflict with its record number', async () => {
    expect((await read('email,address.city,address.zip\na@x.io,Oslo,0150\n', { format: 'csv', nest: '.' })).values).toEqual([
      { email: 'a@x.io', address: { city: 'Oslo', zip: '0150' } },
    ]);
    const error = await failure('a,a.b\n,1\nx,2\n', { format: 'csv', nest: '.' });
    expect(error.message).toMatch(/^in\.csv: record 2: --nest: key "a\.b" conflicts with "a"/);
  });

  it('keeps a __proto__ column as data', async () => {
    expect(JSON.stringify((await read('__proto__,b\n1,2\n', { format: 'csv' })).values)).toBe('[{"__proto__":"1","b":"2"}]');
  });

  it('refuses bytes that are not UTF-8', async () => {
    const error = await failure(Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]), { format: 'csv' });
    expect(error.message).toContain('not valid UTF-8');
  });

  // csv-stringify quotes a field holding a bare \n only when told to (quoted_match) if records end in CRLF
  it('round-trips any table of strings written by csv-stringify, LF or CRLF', async () => {
    const key = fc.string({ minLength: 1, maxLength: 8 });
    const cell = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('a,b', '"q"', 'x\ny', 'r\r\nn', ' ', '東京😀', '\t'));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(key, { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(cell, { minLength: 5, maxLength: 5 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('unix', 'windows'),
        async (header, rows, cut, ends) => {
          // a header cell that is empty or whitespace-only would be ambiguous with a blank line; real headers have names
          fc.pre(header.every((name) => name.trim() !== '' && !name.includes('\uFEFF')));
          const fields = rows.map((row) => row.slice(0, header.length));
          fc.pre(fields.every((row) => row.some((value) => value !== '') || header.length > 1));
          const text = Buffer.from(
            stringify([header, ...fields], { record_delimiter: ends as 'unix' | 'windows', quoted_match: /[\r\n]/ }),
          );
          const chunks = [text.subarray(0, cut), text.subarray(cut)];
          const expected = fields.map((row) =>
            Object.fromEntries(header.map((name, i) => [name, row[i]]).filter(([, value]) => value !== '')),
          );
          expect((await read(chunks, { format: 'csv', delimiter: ',' })).values).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('TSV', () => {
  it('splits on tabs, reads quoted fields and tolerates bare quotes', async () => {
    expect((await read('name\tnote\n"a\tb"\t5" screen\nc\t\n', { format: 'tsv' })).values).toEqual([
      { name: 'a\tb', note: '5" screen' },
      { name: 'c' },
    ]);
  });

  it('refuses a ragged row', async () => {
    expect((await failure('a\tb\n1\t2\t3\n', { format: 'tsv' })).place.line).toBe(2);
  });
});

describe('NDJSON', () => {
  it('reads one object a line, skipping blank lines, with CRLF and a BOM', async () => {
    const text = '\uFEFF{"a":1}\r\n\r\n{"b":{"c":[1,2]}}\n   \n{}\n';
    for (const chunks of splits(text)) {
      const { records } = await read(chunks, { format: 'ndjson' });
      expect(records).toEqual([
        { record: 1, value: { a: 1 }, json: '{"a":1}' },
        { record: 2, value: { b: { c: [1, 2] } }, json: '{"b":{"c":[1,2]}}' },
        { record: 3, value: {}, json: '{}' },
      ]);
    }
  });

  it('refuses a bad line with its line number', async () => {
    const error = await failure('{"a":1}\n\n{"a":\n', { format: 'ndjson' });
    expect(error.message).toMatch(/^in\.ndjson: line 3: not valid JSON/);
  });

  it('hands out the records before a bad line, then its error (stdin is validated as it streams)', async () => {
    for (const format of ['ndjson', 'json'] as const) {
      const text = format === 'ndjson' ? '{"a":1}\n{"a":2}\n{"a":\n{"a":4}\n' : '[{"a":1},{"a":2},{"a":},{"a":4}]';
      const bytes = (async function* () {
        yield Buffer.from(text);
      })();
      const reader = readRecords(bytes, 'in', { format, infer: false, relaxColumns: false });
      expect((await reader.records.next()).value).toEqual([
        { record: 1, value: { a: 1 }, json: '{"a":1}' },
        { record: 2, value: { a: 2 }, json: '{"a":2}' },
      ]);
      await expect(reader.records.next()).rejects.toThrow(/record 3|line 3/);
    }
  });

  it('refuses a record that is not an object with its record number', async () => {
    const error = await failure('{"a":1}\n\n[1,2]\n', { format: 'ndjson' });
    expect(error.message).toBe('in.ndjson: record 2, line 3: not an object (an array); each record must be a JSON object');
  });
});

describe('JSON', () => {
  it.each([
    ['one object', '{"a":1,"b":{"c":2}}', [{ a: 1, b: { c: 2 } }]],
    ['an array', ' [ {"a":1} , {"a":"],}"} ,{}]\n', [{ a: 1 }, { a: '],}' }, {}]],
    ['the data form', '{ "data" : [{"a":1},{"a":2}] }', [{ a: 1 }, { a: 2 }]],
    ['an empty array', '[]', []],
    ['empty data', '{"data":[]}', []],
    ['an object whose data is not an array', '{"data":5,"x":1}', [{ data: 5, x: 1 }]],
    ['nothing', '  ', []],
    ['escaped quotes and backslashes', '[{"a":"x\\"y\\\\"},{"b":"\\u005d"}]', [{ a: 'x"y\\' }, { b: ']' }]],
  ])('reads %s wherever the chunks split', async (_name, text, expected) => {
    for (const chunks of splits(text)) expect((await read(chunks, { format: 'json' })).values).toEqual(expected);
  });

  it('numbers records and lines of an array', async () => {
    const { records } = await read('[\n{"a":1},\n\n{"a":2}\n]', { format: 'json' });
    expect(records.map((r) => r.record)).toEqual([1, 2]);
    const error = await failure('[\n{"a":1},\n\n"x"\n]', { format: 'json' });
    expect(error.message).toBe('in.json: record 2, line 4: not an object (a string); each record must be a JSON object');
  });

  it.each([
    ['a bad element', '[{"a":1},{"a":}]', /record 2, line 1: not valid JSON/],
    ['a trailing comma', '[{"a":1},]', /expected a record after ","/],
    ['a missing comma', '[{"a":1}{"a":2}]', /record 1, line 1: not valid JSON/],
    ['text after the array', '[{"a":1}] x', /unexpected text after the end/],
    ['an unclosed array', '[{"a":1}', /the array is not closed/],
    ['a top-level scalar', '42', /must be one object, an array of objects/],
    ['other members beside data', '{"data":[{"a":1}],"x":1}', /"data" array must have no other members/],
    ['other members before data', '{"x":1,"data":[{"a":1}]}', /"data" array must have no other members/],
    ['a broken single object', '{"a":1', /not valid JSON/],
  ])('refuses %s', async (_name, text, message) => {
    expect((await failure(text, { format: 'json' })).message).toMatch(message);
  });

  it('streams a large array without holding it: records come out while the input is still arriving', async () => {
    let fed = 0;
    const chunks = (async function* () {
      yield '[';
      for (let i = 0; i < 2000; i += 1) {
        fed += 1;
        yield `${i ? ',' : ''}{"i":${i}}`;
      }
      yield ']';
    })();
    const reader = readRecords(chunks, 'big.json', { format: 'json', infer: false, relaxColumns: false });
    const first = await reader.records.next();
    expect(first.value).toEqual([{ record: 1, value: { i: 0 }, json: '{"i":0}' }]);
    expect(fed).toBeLessThan(5);
    let count = 1;
    for await (const chunk of reader.records) count += chunk.length;
    expect(count).toBe(2000);
  });
});

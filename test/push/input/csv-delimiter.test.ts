import { describe, expect, it } from 'vitest';
import { readRecords, type ReadOptions } from '../../../src/push/input/read-input.js';

// A CSV's delimiter, told from its header line (Excel writes `;` in most of Europe).

async function read(text: string, options: Partial<ReadOptions>) {
  const reader = readRecords(
    (async function* () {
      yield text;
    })(),
    'in.csv',
    { format: 'csv', infer: false, relaxColumns: false, ...options },
  );
  const values: unknown[] = [];
  for await (const chunk of reader.records) values.push(...chunk.map((record) => record.value));
  return { values };
}

describe('CSV delimiters', () => {
  it.each([
    ['email,name\na@x.io,Bo\n', ','],
    ['\uFEFFemail;name;city\r\na@x.io;Bo;Köln\r\n', ';'],
    ['email\tname\na@x.io\tBo\n', '\t'],
    ['email|name\na@x.io|Bo\n', '|'],
    ['"a;b",c\n1,2\n', ','],
    ['email\na@x.io\n', ','],
  ])('%j is read with %j, from its header line', async (text, delimiter) => {
    const told: string[] = [];
    const { values } = await read(text, { onDelimiter: (d) => told.push(d) });
    expect(told).toEqual([delimiter]);
    expect(Object.keys(values[0] as object).length).toBe(text.startsWith('email\n') ? 1 : text.includes('city') ? 3 : 2);
  });
});

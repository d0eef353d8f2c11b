import { describe, expect, it } from 'vitest';
import { chooseFormat, formatFromPath } from '../../src/output/format.js';
import { inputFormatOf } from '../../src/push/input/input-record.js';

// One table of file extensions: what -o FILE writes and what push reads by the same name.

describe('file extensions', () => {
  it.each([
    ['rows.csv', 'csv'],
    ['rows.tsv', 'tsv'],
    ['rows.tab', 'tsv'],
    ['ROWS.TAB', 'tsv'],
    ['rows.ndjson', 'ndjson'],
    ['rows.jsonl', 'ndjson'],
    ['rows.json', 'json'],
  ])('%s is %s, for an output and for push input alike', (path, format) => {
    expect(formatFromPath(path)).toBe(format);
    expect(chooseFormat({ output: path, fallback: 'table' })).toBe(format);
    expect(inputFormatOf(path, undefined)).toBe(format);
  });

  it('an extension neither knows is refused by both', () => {
    expect(formatFromPath('rows.txt')).toBeUndefined();
    expect(() => chooseFormat({ output: 'rows.txt', fallback: 'table' })).toThrow(/cannot tell the format/);
    expect(() => inputFormatOf('rows.txt', undefined)).toThrow(/cannot tell the format/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseFilterJson } from '../../src/filter/filter-json.js';

// Issue 15, item 14: `--filter @key.txt` with a file that is not JSON must not print the file's content.

describe('parseFilterJson on text that is not JSON', () => {
  it.each([
    ['tds_live_9a8b7c6d5e4f3a2b', 'line 1, column 1: unexpected character'],
    ['{"rules": [tds_live_9a8b7c6d5e4f3a2b]}', 'line 1, column 12: unexpected character'],
    [
      '{\n  "combinator": "and",\n  "rules": [ { "fieldId": "tds_live_9a8b7c6d5e4f3a2b" ',
      'line 3, column 55: the JSON text ends too early',
    ],
  ])('says where %j is invalid without quoting it', (text, place) => {
    let message = '';
    try {
      parseFilterJson(text, []);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`not valid JSON (${place})`);
    expect(message).not.toContain('tds_live');
    expect(message).not.toContain('9a8b7c');
  });
});

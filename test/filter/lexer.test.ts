import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/filter/lexer.js';
import { catchFilterError } from './catch-filter-error.js';

const kinds = (text: string) => tokenize(text).map((token) => `${token.kind}:${token.text}`);

describe('tokenize', () => {
  it.each([
    ['Name = Ada', ['word:Name', 'symbol:=', 'word:Ada', 'end:']],
    ['Age>=18', ['word:Age', 'symbol:>=', 'word:18', 'end:']],
    ['Age!=-3.5', ['word:Age', 'symbol:!=', 'word:-3.5', 'end:']],
    ['Email = ada.lovelace+crm@example.co.uk', ['word:Email', 'symbol:=', 'word:ada.lovelace+crm@example.co.uk', 'end:']],
    ['d > 2024-05-01T10:00:00.123+02:00', ['word:d', 'symbol:>', 'word:2024-05-01T10:00:00.123+02:00', 'end:']],
    ['fld_a-1_b null', ['word:fld_a-1_b', 'word:null', 'end:']],
    ['d between 2024-01-01..2024-02-01', ['word:d', 'word:between', 'word:2024-01-01', '..:..', 'word:2024-02-01', 'end:']],
    ['x between 1.5..2.5', ['word:x', 'word:between', 'word:1.5', '..:..', 'word:2.5', 'end:']],
    ['t in [a, "b c",d]', ['word:t', 'word:in', '[:[', 'word:a', ',:,', 'string:b c', ',:,', 'word:d', ']:]', 'end:']],
    ['(a = 1)or(b = 2)', ['(:(', 'word:a', 'symbol:=', 'word:1', '):)', 'word:or', '(:(', 'word:b', 'symbol:=', 'word:2', '):)', 'end:']],
    ["Name = O'Brien", ['word:Name', 'symbol:=', "word:O'Brien", 'end:']],
    ["Name = 'single quoted'", ['word:Name', 'symbol:=', 'string:single quoted', 'end:']],
    ['"Full \\"Name\\"" = x', ['string:Full "Name"', 'symbol:=', 'word:x', 'end:']],
    ['n = "back\\\\slash"', ['word:n', 'symbol:=', 'string:back\\slash', 'end:']],
    ['n = "C:\\temp"', ['word:n', 'symbol:=', 'string:C:\\temp', 'end:']],
    ["n = 'it\\'s'", ['word:n', 'symbol:=', "string:it's", 'end:']],
    ['n = "say \'hi\'"', ['word:n', 'symbol:=', "string:say 'hi'", 'end:']],
    ['a==b', ['word:a', 'symbol:==', 'word:b', 'end:']],
    ['a  \t\n b', ['word:a', 'word:b', 'end:']],
    ['', ['end:']],
    ['x = a"b"', ['word:x', 'symbol:=', 'word:a', 'string:b', 'end:']],
    ['x = ...5', ['word:x', 'symbol:=', '..:..', 'word:.5', 'end:']],
  ])('%s', (text, expected) => {
    expect(kinds(text)).toEqual(expected);
  });

  it('records the offset and end of every token, quotes included', () => {
    expect(tokenize('"A b" = [1]').map(({ pos, end }) => [pos, end])).toEqual([
      [0, 5],
      [6, 7],
      [8, 9],
      [9, 10],
      [10, 11],
      [11, 11],
    ]);
  });

  it.each([
    ['Name = "unclosed', 7],
    ["Name = 'unclosed", 7],
    ['"never', 0],
    ['x = "ends with escape\\"', 4],
  ])('an unclosed string is a FilterError at its quote: %s', (text, position) => {
    const error = catchFilterError(() => tokenize(text));
    expect(error.location.position).toBe(position);
    expect(error.message).toContain('never closed');
  });
});

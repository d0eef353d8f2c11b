import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { causeOf, causeSql } from '../../src/stats/error-cause.js';

// The failure cause of an error message: its variable parts replaced by placeholders, the same in
// JavaScript (causeOf) and in DuckDB (causeSql), where `tds stats` computes it.

describe('causeOf: variable parts become placeholders', () => {
  it.each([
    ['Domain acme.example could not be resolved', 'Domain <domain> could not be resolved'],
    ['Domain www.big-firm.co.uk could not be resolved.', 'Domain <domain> could not be resolved.'],
    ['GET https://api.example.com/v2/people?id=7 returned 503', 'GET <url> returned <n>'],
    ['See (https://status.example/incident/12).', 'See (<url>).'],
    ['No person found for ada.lovelace+work@mail.example', 'No person found for <email>'],
    ['Column "Company Name" is empty', 'Column "<text>" is empty'],
    ["Field 'domain' can't be read", 'Field "<text>" can\'t be read'],
    ["can't resolve it", "can't resolve it"],
    ['Unknown value `foo bar`', 'Unknown value "<text>"'],
    ['Expected “Yes” or ‘No’', 'Expected "<text>" or "<text>"'],
    ['Row row_8f3a2c9d1 not found', 'Row <id> not found'],
    ['Request 0f8fad5b-d9cb-469f-a165-70867728950e failed', 'Request <id> failed'],
    ['Timeout after 30000 ms (attempt 3 of 5)', 'Timeout after <n> ms (attempt <n> of <n>)'],
    ['Timeout after 45.5s', 'Timeout after <n>s'],
    ['Took 100ms, then 2.5min', 'Took <n>ms, then <n>min'],
    ['Spent 1,250.50 credits, 3.5 left', 'Spent <n> credits, <n> left'],
    ['Error404: page gone', '<id>: page gone'],
    ['HTTP2 stream usr_3 reset', 'HTTP<n> stream usr_<n> reset'],
    ['Host 10.0.0.12 unreachable', 'Host <n> unreachable'],
    ['  Provider   returned\nan unexpected\tresponse  ', 'Provider returned an unexpected response'],
    ['Provider rate limit reached', 'Provider rate limit reached'],
    ['', ''],
  ])('%j → %j', (message, cause) => {
    expect(causeOf(message)).toBe(cause);
  });

  it.each([
    ['{"code":"RATE_LIMITED","message":"Provider rate limit reached"}', 'RATE_LIMITED: Provider rate limit reached'],
    ['{"message":"Quota of 500 reached"}', 'Quota of <n> reached'],
    ['{"code":429,"message":"Slow down"}', 'Slow down'],
    ['{"error":"no message member"}', '{"<text>":"<text>"}'],
    ['{not json', '{not json'],
    ['["a"]', '["<text>"]'],
  ])('an error object %j is its message: %j', (message, cause) => {
    expect(causeOf(message)).toBe(cause);
  });
});

const word = fc.stringMatching(/^[a-z]{1,8}$/);
const alnum = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([labels, tld]) => [...labels, tld].join('.'));
const quotedText = fc.string({ maxLength: 20 }).filter((text) => !/["'`“”‘’\n]/.test(text));
/** Values of each kind of variable part, as they appear in messages. */
const VARIABLE_PARTS = {
  number: fc.oneof(
    fc.nat().map(String),
    fc.tuple(fc.nat(), fc.nat(99)).map(([a, b]) => `${a}.${b}`),
    fc.integer({ min: 1000, max: 999_999 }).map((n) => n.toLocaleString('en-US')),
  ),
  // the quote marks are part of the wording
  doubleQuoted: quotedText.map((text) => `"${text}"`),
  singleQuoted: quotedText.map((text) => `'${text}'`),
  backquoted: quotedText.map((text) => `\`${text}\``),
  email: fc.tuple(fc.stringMatching(/^[a-z0-9][a-z0-9.+_-]{0,10}$/), domain).map(([local, host]) => `${local}@${host}`),
  domain,
  url: fc
    .tuple(fc.constantFrom('http', 'https'), domain, fc.stringMatching(/^(\/[a-z0-9_-]{0,8}){0,3}(\?[a-z]=[0-9]{1,3})?$/))
    .map(([scheme, host, path]) => `${scheme}://${host}${path}`),
  id: fc.oneof(
    fc
      .tuple(fc.stringMatching(/^([a-z]{2,4}_)?$/), fc.array(fc.constantFrom(...alnum), { minLength: 6, maxLength: 20 }))
      .filter(([, chars]) => chars.some((c) => /[0-9]/.test(c)) && chars.some((c) => /[A-Za-z]/.test(c)))
      // digits and up to 3 letters are a number with its unit (100ms), not an ID
      .filter(([prefix, chars]) => !/^[0-9]+[A-Za-z]{1,3}$/.test(prefix + chars.join('')))
      .map(([prefix, chars]) => prefix + chars.join('')),
    fc.uuid(),
  ),
};
type Kind = keyof typeof VARIABLE_PARTS;
const kind = fc.constantFrom(...(Object.keys(VARIABLE_PARTS) as Kind[]));
/** A message template: words, and slots of a kind (each slot maybe followed by punctuation). */
const template = fc.array(
  fc.oneof(
    { arbitrary: word.map((text) => ({ word: text })), weight: 2 },
    kind.map((k) => ({ slot: k })),
  ),
  {
    minLength: 1,
    maxLength: 8,
  },
);
type Template = Array<{ word: string } | { slot: Kind }>;
const fill = (parts: Template, values: string[], punctuation: string[]): string =>
  parts.map((part, i) => ('word' in part ? part.word : `${values[i]}${punctuation[i]}`)).join(' ');
const filled = (parts: Template) =>
  fc.tuple(
    fc.tuple(...parts.map((part) => ('slot' in part ? VARIABLE_PARTS[part.slot] : fc.constant('')))),
    fc.array(fc.constantFrom('', '', '.', ',', ':', ';', '!', '?'), { minLength: parts.length, maxLength: parts.length }),
  );

describe('causeOf: one cause for what differs only in a number or a quote style (issue 29, item 14)', () => {
  it.each([
    ['Timeout after 30s', 'Timeout after 45.5s', 'Timeout after <n>s'],
    ['Timeout after 30 s', 'Timeout after 45.5 s', 'Timeout after <n> s'],
    [`User 'x' not found`, 'User "x" not found', 'User "<text>" not found'],
    ['User `x` not found', 'User “x” not found', 'User "<text>" not found'],
  ])('%j and %j are %j', (a, b, cause) => {
    expect(causeOf(a)).toBe(cause);
    expect(causeOf(b)).toBe(cause);
  });

  it('a cause is at most 200 characters, cut with …', () => {
    expect(causeOf('Failed: ' + 'x'.repeat(100_000))).toBe(`Failed: ${'x'.repeat(192)}…`);
    expect(causeOf('é'.repeat(300))).toBe(`${'é'.repeat(200)}…`);
    expect(causeOf('😀'.repeat(300))).toBe(`${'😀'.repeat(200)}…`);
    expect(causeOf('y'.repeat(200))).toBe('y'.repeat(200));
  });
});

describe('causeOf: properties', () => {
  it('two messages that differ only in their variable parts are one cause', () => {
    fc.assert(
      fc.property(
        template.chain((parts) => fc.tuple(fc.constant(parts), filled(parts), filled(parts))),
        ([parts, [a, punctuation], [b]]) => {
          expect(causeOf(fill(parts, a, punctuation))).toBe(causeOf(fill(parts, b, punctuation)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('messages worded differently are different causes', () => {
    fc.assert(
      fc.property(
        template.chain((parts) => fc.tuple(fc.constant(parts), filled(parts), fc.nat(parts.length - 1), word)),
        ([parts, [values, punctuation], at, other]) => {
          const reworded = parts.map((part, i) => (i === at ? { word: other } : part));
          fc.pre(!('word' in parts[at]!) || parts[at].word !== other);
          expect(causeOf(fill(reworded, values, punctuation))).not.toBe(causeOf(fill(parts, values, punctuation)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the cause of a message is its own cause', () => {
    fc.assert(
      fc.property(
        template.chain((parts) => filled(parts).map(([values, punctuation]) => fill(parts, values, punctuation))),
        (message) => {
          const cause = causeOf(message);
          expect(causeOf(cause)).toBe(cause);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('causeSql: DuckDB finds the same cause', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(':memory:', { readOnly: false, what: 'a test database' });
  });
  afterAll(() => db?.close());

  const inDuckDB = async (messages: readonly string[]): Promise<string[]> => {
    const values = messages.map((_, i) => `($${i + 1})`).join(', ');
    const reader = await db.connection.runAndReadAll(
      `SELECT ${causeSql('m')} AS cause FROM (SELECT m, row_number() OVER () AS i FROM (VALUES ${values}) AS v(m)) ORDER BY i`,
      [...messages],
    );
    return reader.getRowObjectsJS().map((row) => String(row.cause));
  };

  it('for the table of examples and error objects', async () => {
    const messages = [
      'Domain acme.example could not be resolved',
      'GET https://api.example.com/v2/people?id=7 returned 503',
      "Field 'domain' can't be read",
      'Expected “Yes” or ‘No’',
      'Request 0f8fad5b-d9cb-469f-a165-70867728950e failed',
      '  Provider   returned\nan unexpected\tresponse  ',
      '{"code":"RATE_LIMITED","message":"Provider rate limit reached"}',
      '{"code":429,"message":"Slow down 5"}',
      '{"error":"no message member"}',
      '{not json',
      '',
      'Timeout after 45.5s',
      `User 'x'`,
      'Failed: ' + 'x'.repeat(100_000),
      '😀'.repeat(300),
    ];
    expect(await inDuckDB(messages)).toEqual(messages.map(causeOf));
  });

  it('for any text', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: fc.constantFrom(...'ab1.@:/"\'` -_\n“”‘’x9{}'), maxLength: 40 }),
      template.chain(filled).map(([values]) => values.join(' ')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          text.filter((s) => !s.includes('\u0000')),
          { minLength: 1, maxLength: 40 },
        ),
        async (messages) => {
          expect(await inDuckDB(messages)).toEqual(messages.map(causeOf));
        },
      ),
      { numRuns: 25 },
    );
  });
});

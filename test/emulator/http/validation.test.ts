import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { acceptedOperators } from '../../../src/service/index.js';
import { call, get, post, seededTable, type TableInfo } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md 4.4 and 4.5 (parameters, body, filter size rules) and section 8 (size limits): 400s naming the limit.

describe('validation', () => {
  let emu: RunningEmulator, leads: TableInfo, rowsPath: string, queryPath: string;
  it.beforeAll(async ({ openForFile }) => {
    ({ emu, info: leads, rowsPath, queryPath } = await seededTable(openForFile, 'Leads'));
  });

  const expect400 = (reply: { status: number; body: unknown }, message: RegExp) => {
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ statusCode: 400, error: 'API Error', message: expect.stringMatching(message) });
  };
  // Rules name their column as "@name"; send() swaps in the field id (the ids are known only after start).
  const rule = (name: string, operator: string, value?: unknown) => ({
    fieldId: `@${name}`,
    operator,
    ...(value === undefined ? {} : { value }),
  });
  const filtered = (...rules: unknown[]) => ({ filters: { rules } });
  const send = (body: unknown) =>
    post(
      emu,
      queryPath,
      JSON.stringify(body).replace(/"@(\w+)"/g, (_, name: string) => JSON.stringify(leads.id[name])),
    );

  it.each(['abc', '0', '101', '1.5', '-1', '', '1e2'])('refuses limit=%s on GET rows', async (limit) => {
    expect400(await get(emu, `${rowsPath}?limit=${limit}`), /limit must be a whole number from 1 to 100/);
  });

  it.each([0, 101, 1.5, '5', null, true])('refuses limit %j in the query body', async (limit) => {
    expect400(await post(emu, queryPath, { limit }), /limit must be a whole number from 1 to 100/);
  });

  it('accepts limit 1 and 100 and defaults to 100', async () => {
    expect((await get(emu, `${rowsPath}?limit=1`)).body.rows).toHaveLength(1);
    const page = (await get(emu, rowsPath)).body;
    expect([page.rows.length, page.limit]).toEqual([100, 100]);
    expect((await post(emu, queryPath, { limit: 100 })).body.limit).toBe(100);
  });

  it('refuses a cursor over 500 characters, empty, or malformed', async () => {
    expect400(await get(emu, `${rowsPath}?cursor=${'a'.repeat(501)}`), /at most 500/);
    expect400(await get(emu, `${rowsPath}?cursor=${'a'.repeat(500)}`), /cursor is not valid/);
    expect400(await post(emu, queryPath, { cursor: 'a'.repeat(501) }), /at most 500/);
    expect400(await get(emu, `${rowsPath}?cursor=`), /cursor/);
    expect400(await get(emu, `${rowsPath}?cursor=bm90LWEtY3Vyc29y`), /cursor is not valid/);
    expect400(await post(emu, queryPath, { cursor: 42 }), /cursor must be a string/);
  });

  it('refuses search text over 100 characters in q and query', async () => {
    expect400(await get(emu, `${rowsPath}?q=${'x'.repeat(101)}`), /at most 100/);
    expect400(await post(emu, queryPath, { q: 'x'.repeat(101) }), /q is 101 characters.*at most 100/);
    expect400(await post(emu, queryPath, { query: 'x'.repeat(101) }), /query is 101 characters/);
    expect((await get(emu, `${rowsPath}?q=${'x'.repeat(100)}`)).status).toBe(200);
  });

  it('ignores an empty q, and query wins over q even when empty', async () => {
    const plain = (await get(emu, `${rowsPath}?limit=5`)).body.rows.map((row: { id: string }) => row.id);
    expect((await get(emu, `${rowsPath}?limit=5&q=`)).body.rows.map((row: { id: string }) => row.id)).toEqual(plain);
    const both = await post(emu, queryPath, { q: 'zzz-no-such-text', query: '', limit: 5 });
    expect(both.body.rows.map((row: { id: string }) => row.id)).toEqual(plain);
    const queryOnly = await post(emu, queryPath, { q: '', query: 'zzz-no-such-text' });
    expect(queryOnly.body.rows).toEqual([]);
  });

  it('needs a JSON object body with Content-Type application/json and no unknown members', async () => {
    expect400(await post(emu, queryPath, [1]), /body must be a JSON object/);
    expect400(await post(emu, queryPath, 'null'), /body must be a JSON object/);
    expect400(await post(emu, queryPath, '{"limit": 5'), /not valid JSON/);
    expect400(await post(emu, queryPath, ''), /body is required/);
    expect400(await post(emu, queryPath, { limit: 5, sort: 'name' }), /unknown member "sort"/);
    expect400(await call(emu, 'POST', queryPath, { body: '{}', headers: { 'content-type': 'text/plain' } }), /Content-Type/);
    expect(
      (await call(emu, 'POST', queryPath, { body: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } })).status,
    ).toBe(200);
  });

  it('refuses an unknown fieldId and an unknown operator', async () => {
    expect400(await send({ filters: { rules: [{ fieldId: 'fld_nope', operator: '=', value: 'x' }] } }), /unknown fieldId "fld_nope"/);
    expect400(await send({ filters: { rules: [{ fieldId: 'Name', operator: '=', value: 'x' }] } }), /unknown fieldId "Name"/);
    expect400(await send(filtered(rule('name', 'like', 'x'))), /unknown operator "like"/);
    expect400(await send(filtered({ fieldId: leads.id.name })), /operator/);
  });

  it.each([
    ['employees', 'number', 'contains'],
    ['name', 'text', '>'],
    ['email', 'email', 'in'],
    ['tags', 'multi_select', '='],
    ['address', 'object', '='],
    ['last_contacted', 'date', '!='],
    ['qualified', 'boolean', 'contains'],
    ['notes', 'input', 'contains'],
  ] as const)('refuses an operator a %s column (%s) does not accept, listing the accepted ones', async (name, type, operator) => {
    const reply = await send(filtered(rule(name, operator, 'x')));
    expect400(reply, new RegExp(`operator "${operator.replace(/[>]/g, '\\$&')}" is not accepted`));
    expect(reply.body.message).toContain(`accepted: ${acceptedOperators(type).join(' ')}`);
  });

  it('accepts the run-status operators on the action column', async () => {
    for (const operator of ['hasError', 'hasNoError', 'hasNotRun', 'runConditionNotMet', 'isFound', 'isNotFound']) {
      expect((await send(filtered(rule('enrich', operator)))).status).toBe(200);
    }
  });

  it.each([
    ['a missing value', rule('name', '='), /needs a value/],
    ['a value on null', { ...rule('name', 'null'), value: 'x' }, /takes no value/],
    ['a null value on null', { ...rule('name', 'null'), value: null }, /takes no value/],
    ['a value on hasError', { ...rule('enrich', 'hasError'), value: true }, /takes no value/],
    ['a scalar for in', rule('name', 'in', 'x'), /list of strings/],
    ['numbers in a list', rule('name', 'notIn', [1, 2]), /list of strings/],
    ['a list for =', rule('name', '=', ['x']), /text, a number or true\/false/],
    ['an object for contains', rule('name', 'contains', { a: 1 }), /text, a number or true\/false/],
    ['null for =', rule('name', '=', null), /text, a number or true\/false/],
    ['an unknown preset', rule('last_contacted', 'isDatePreset', 'nextDecade'), /isDatePreset needs one of: today/],
    ['between without end', rule('last_contacted', 'between', { start: '2025-01-01T00:00:00Z' }), /end is required/],
    [
      'between with a date only',
      rule('last_contacted', 'between', { start: '2025-01-01', end: '2025-02-01T00:00:00Z' }),
      /not an ISO 8601 date-time/,
    ],
    [
      'between with extra members',
      rule('last_contacted', 'between', { start: '2025-01-01T00:00Z', end: '2025-02-01T00:00Z', tz: 'UTC' }),
      /unknown member "tz"/,
    ],
    ['a value over 1000 characters', rule('name', 'contains', 'x'.repeat(1001)), /at most 1000/],
    ['a list entry over 1000 characters', rule('name', 'in', ['ok', 'x'.repeat(1001)]), /value is 1010 characters as JSON text/],
    [
      'a list of short entries whose JSON text is over 1000 characters',
      rule(
        'name',
        'in',
        Array.from({ length: 10 }, () => 'x'.repeat(100)),
      ),
      /value is 1031 characters as JSON text; a filter value is at most 1000/,
    ],
    [
      'a between range whose JSON text is over 1000 characters',
      rule('last_contacted', 'between', { start: 'x'.repeat(500), end: 'y'.repeat(500) }),
      /value is 1021 characters as JSON text/,
    ],
    ['a rule with unknown members', { ...rule('name', '=', 'x'), label: 'Name' }, /unknown member "label"/],
    ['a non-number on a number column', rule('employees', '>', 'many'), /must be a number/],
    ['a number as hex text ("0x10"), which is not JSON number text', rule('employees', '>', '0x10'), /must be a number/],
    ['a number as text with blanks (" 42 ")', rule('employees', '=', ' 42 '), /must be a number/],
    ['a number as "Infinity"', rule('employees', '<', 'Infinity'), /must be a number/],
    ['a non-boolean on a boolean column', rule('qualified', '=', 'yes'), /true or false/],
    ['a boolean as upper-case text ("TRUE"), which is not JSON text', rule('qualified', '=', 'TRUE'), /true or false/],
    ['a non-date on a date column', rule('last_contacted', '<', 'last tuesday'), /ISO 8601/],
    ['an impossible calendar date (2025-04-31) on a date column', rule('last_contacted', '=', '2025-04-31'), /ISO 8601/],
    ['February 29 of a common year in a date-time', rule('last_contacted', '>', '2025-02-29T00:00:00Z'), /ISO 8601/],
    ['hour 24 in a date-time', rule('last_contacted', '<', '2025-03-01T24:00:00Z'), /ISO 8601/],
    [
      'an impossible date in a between range (2025-02-30)',
      rule('last_contacted', 'between', { start: '2025-02-30T00:00:00Z', end: '2025-03-31T00:00:00Z' }),
      /start: "2025-02-30T00:00:00Z" is not an ISO 8601 date-time/,
    ],
    [
      'an offset of 24 hours in a between range',
      rule('last_contacted', 'between', { start: '2025-02-01T00:00:00+24:00', end: '2025-03-31T00:00:00Z' }),
      /not an ISO 8601 date-time/,
    ],
  ])('refuses %s', async (_name, badRule, message) => {
    expect400(await send(filtered(badRule)), message);
  });

  it('accepts values up to 1000 characters and numbers as JSON text', async () => {
    expect((await send(filtered(rule('name', 'contains', 'x'.repeat(1000))))).status).toBe(200);
    expect((await send(filtered(rule('employees', '>', '42')))).status).toBe(200);
    expect((await send(filtered(rule('employees', '>', '-1.5e3')))).status).toBe(200);
  });

  it('accepts a list whose JSON text is exactly 1000 characters, refuses 1001', async () => {
    // ["x…x"]: 4 characters of JSON around the entry
    expect((await send(filtered(rule('name', 'in', ['x'.repeat(996)])))).status).toBe(200);
    expect400(await send(filtered(rule('name', 'in', ['x'.repeat(997)]))), /value is 1001 characters as JSON text/);
  });

  it('accepts real calendar dates: February 29 of a leap year, 23:59:59, offsets up to 23:59', async () => {
    expect((await send(filtered(rule('last_contacted', '=', '2024-02-29')))).status).toBe(200);
    const range = { start: '2024-02-29T23:59:59-23:59', end: '2024-12-31T23:59:59.999+05:30' };
    expect((await send(filtered(rule('last_contacted', 'between', range)))).status).toBe(200);
  });

  it('refuses a deeply nested limit with 400, not an emulator failure', async () => {
    const deep = `{"limit":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    expect400(await post(emu, queryPath, deep), /limit must be a whole number from 1 to 100 \(got an array\)/);
    expect400(await post(emu, queryPath, { limit: 'x'.repeat(5_000) }), /\(got "x{20}…"\)$/);
  });

  it('checks the group shape', async () => {
    expect400(await post(emu, queryPath, { filters: [] }), /filters must be a filter group/);
    expect400(await post(emu, queryPath, { filters: {} }), /rules is required/);
    expect400(await post(emu, queryPath, { filters: { combinator: 'xor', rules: [] } }), /combinator must be "and" or "or"/);
    expect400(await post(emu, queryPath, { filters: { rules: [], not: true } }), /unknown member "not"/);
    expect400(await post(emu, queryPath, { filters: { rules: [42] } }), /filters.rules\[0\] must be a rule/);
  });

  const nest = (levels: number): unknown => {
    let group: unknown = { rules: [rule('name', 'notNull')] };
    for (let level = 1; level < levels; level += 1) group = { combinator: 'or', rules: [group] };
    return group;
  };

  it('allows 5 levels of nesting counting the top, refuses 6', async () => {
    expect((await send({ filters: nest(5) })).status).toBe(200);
    expect400(await send({ filters: nest(6) }), /at most 5 levels counting the top level/);
  });

  it('allows 25 entries in a group, refuses 26', async () => {
    const rules = (n: number) => Array.from({ length: n }, () => rule('name', 'notNull'));
    expect((await send({ filters: { rules: rules(25) } })).status).toBe(200);
    expect400(await send({ filters: { rules: rules(26) } }), /has 26 entries; a group holds at most 25/);
  });

  it('allows 100 entries in total (a nested group counts one), refuses 101', async () => {
    const group = (n: number) => ({ rules: Array.from({ length: n }, () => rule('name', 'notNull')) });
    // top: 4 groups of 24 rules = 4 + 96 = 100 entries
    expect((await send({ filters: { rules: [group(24), group(24), group(24), group(24)] } })).status).toBe(200);
    expect400(
      await send({ filters: { rules: [group(24), group(24), group(24), group(24), rule('name', 'notNull')] } }),
      /more than 100 entries in total/,
    );
  });

  it('ignores containsAnyOf entries past 20', async () => {
    const rows = async (list: string[]) =>
      (await send(filtered(rule('name', 'containsAnyOf', list)))).body.rows.map((row: { id: string }) => row.id);
    const twenty = Array.from({ length: 20 }, (_, i) => `no-such-name-${i}`);
    expect(await rows([...twenty, 'a'])).toEqual([]);
    expect((await rows(['a'])).length).toBeGreaterThan(0);
  });

  it('gives 404 before validating the body of an unknown table', async () => {
    const reply = await post(emu, '/tables/tbl_unknown/rows/query', { limit: 0 });
    expect(reply.status).toBe(404);
  });
});

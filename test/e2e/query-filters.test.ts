import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Field, Table } from '../../src/service/index.js';
import { parseNdjson, queryRows, schemaOf, tableNamed } from './rows-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds query` through the CLI, operator family by family and nested: the rows it writes must be the
// rows the service returns for the same filter written by hand in the service's own JSON.

let emulator: Harness;
let tds: Harness['tds'];
let leads: Table;
let fields: Field[];
let rowCount: number;

it.override({ harnessOptions: { spawned: {} } });

it.beforeAll(async ({ harness }) => {
  emulator = harness;
  tds = harness.tds;
  leads = await tableNamed(emulator, 'Leads');
  fields = await schemaOf(emulator, leads.id);
  rowCount = leads.rowCount;
});

/** The field ID of a column by name (names are unique in the demo schema). */
const id = (name: string): string => fields.find((field) => field.name === name)!.id;
const rule = (name: string, operator: string, value?: unknown) => ({
  fieldId: id(name),
  operator,
  ...(value === undefined ? {} : { value }),
});
const all = (...rules: unknown[]) => ({ combinator: 'and', rules });
const any = (...rules: unknown[]) => ({ combinator: 'or', rules });

async function cliIds(args: string[], input?: string): Promise<string[]> {
  const result = await tds(['query', 'Leads', '--format', 'ndjson', '--columns', 'Name', ...args], input === undefined ? {} : { input });
  expect(result.stderr).not.toMatch(/tds: (?!warning)/);
  expect(result.code).toBe(0);
  return parseNdjson(result.stdout).map((record) => String(record._id));
}

async function serviceIds(body: Record<string, unknown>): Promise<string[]> {
  const ids = (await queryRows(emulator, leads.id, body)).map((row) => row.id);
  expect(ids.length).toBeGreaterThan(0); // a filter that matches nothing would prove little
  expect(ids.length).toBeLessThan(rowCount);
  return ids;
}

/** `tds query --where WHERE` writes the rows, in order, that the service returns for `filters`. */
async function expectSameRowsAsService(where: string, filters: unknown): Promise<void> {
  expect(await cliIds(['--where', where])).toEqual(await serviceIds({ filters }));
}

describe.concurrent('tds query: operator families', () => {
  // each: a --where expression, and the same filter in the service's JSON (a function: the field IDs are read before the tests)
  it.each<[string, string, () => unknown]>([
    [
      'text: = != contains doesNotContain startsWith',
      'name contains "son" and name doesNotContain "ada" or name startsWith "Grace" or name = "00123" and name != "x"',
      () =>
        any(
          all(rule('name', 'contains', 'son'), rule('name', 'doesNotContain', 'ada')),
          rule('name', 'startsWith', 'Grace'),
          all(rule('name', '=', '00123'), rule('name', '!=', 'x')),
        ),
    ],
    [
      'text lists: in notIn containsAnyOf doesNotContainAnyOf',
      'name containsAnyOf [lovelace, hopper, "o\'brien"] and name doesNotContainAnyOf [grace] or name in ["Smith, John", "00123"] and name notIn [nobody]',
      () =>
        any(
          all(rule('name', 'containsAnyOf', ['lovelace', 'hopper', "o'brien"]), rule('name', 'doesNotContainAnyOf', ['grace'])),
          all(rule('name', 'in', ['Smith, John', '00123']), rule('name', 'notIn', ['nobody'])),
        ),
    ],
    [
      'number: = != > >= < <= (values sent as numbers)',
      'Employees > 100 and Employees <= 20000 and Employees != 500 or Employees = 31 or Employees >= 40000 and Employees < 45000',
      () =>
        any(
          all(rule('employees', '>', 100), rule('employees', '<=', 20000), rule('employees', '!=', 500)),
          rule('employees', '=', 31),
          all(rule('employees', '>=', 40000), rule('employees', '<', 45000)),
        ),
    ],
    [
      'date: isDatePreset, between, <, >, = (dates as ISO 8601)',
      '"Last Contacted" isDatePreset last7Days or "Last Contacted" between 2020-01-01..2020-12-31 or "Last Contacted" < 2019-06-01 ' +
        'or "Last Contacted" > 2099-01-01T00:00:00Z or "Last Contacted" = 2025-03-03',
      () =>
        any(
          rule('last_contacted', 'isDatePreset', 'last7Days'),
          rule('last_contacted', 'between', { start: '2020-01-01T00:00:00.000Z', end: '2020-12-31T23:59:59.999Z' }),
          rule('last_contacted', '<', '2019-06-01T00:00:00.000Z'),
          rule('last_contacted', '>', '2099-01-01T00:00:00Z'),
          rule('last_contacted', '=', '2025-03-03T00:00:00.000Z'),
        ),
    ],
    [
      'boolean, select by label or value, multi_select',
      'Qualified = true and (Stage = "Closed Won" or Stage in [new, Contacted]) and Tags notIn [Newsletter] or Tags in [VIP] and Stage != qualified',
      () =>
        any(
          all(
            rule('qualified', '=', true),
            any(rule('stage', '=', 'closed_won'), rule('stage', 'in', ['new', 'contacted'])),
            rule('tags', 'notIn', ['newsletter']),
          ),
          all(rule('tags', 'in', ['vip']), rule('stage', '!=', 'qualified')),
        ),
    ],
    [
      'action run statuses: hasError, runConditionNotMet',
      'Enrich hasError or Enrich runConditionNotMet',
      () => any(rule('enrich', 'hasError'), rule('enrich', 'runConditionNotMet')),
    ],
    [
      'action run statuses: hasNotRun, isNotFound',
      'Enrich hasNotRun or Enrich isNotFound',
      () => any(rule('enrich', 'hasNotRun'), rule('enrich', 'isNotFound')),
    ],
    [
      'action run statuses: hasNoError, isFound (with a text operator)',
      'Enrich hasNoError and Enrich isFound and Enrich contains software',
      () => all(rule('enrich', 'hasNoError'), rule('enrich', 'isFound'), rule('enrich', 'contains', 'software')),
    ],
    [
      'null and notNull on any column; email, url, image and formula text operators',
      'Phone null or Logo notNull and email startsWith "ada" or Website contains "hooli" or Score containsAnyOf ["9.5", "42"] or Logo startsWith "https://img.example/logos/s"',
      () =>
        any(
          rule('phone', 'null'),
          all(rule('logo', 'notNull'), rule('email', 'startsWith', 'ada')),
          rule('website', 'contains', 'hooli'),
          rule('score', 'containsAnyOf', ['9.5', '42']),
          rule('logo', 'startsWith', 'https://img.example/logos/s'),
        ),
    ],
  ])('%s', async (_, where, filters) => {
    await expectSameRowsAsService(where, filters());
  });
});

describe.concurrent('tds query: combining', () => {
  it('nested parentheses four levels deep', async () => {
    await expectSameRowsAsService(
      '(Employees > 1000 and (Stage = New or (Qualified = false and (Tags in [SMB] or Phone null)))) or Name startsWith "Linus"',
      any(
        all(
          rule('employees', '>', 1000),
          any(rule('stage', '=', 'new'), all(rule('qualified', '=', false), any(rule('tags', 'in', ['smb']), rule('phone', 'null')))),
        ),
        rule('name', 'startsWith', 'Linus'),
      ),
    );
  });

  it('several --where joined with and; --any joins them with or; -q searches too', async () => {
    const [both, either] = await Promise.all([
      cliIds(['--where', 'Employees > 1000', '--where', 'Qualified = true', '-q', 'example']),
      cliIds(['--where', 'Stage = "Closed Won"', '--where', 'Tags in [VIP]', '--any']),
    ]);
    expect(both).toEqual(await serviceIds({ q: 'example', filters: all(rule('employees', '>', 1000), rule('qualified', '=', true)) }));
    expect(either).toEqual(await serviceIds({ filters: any(rule('stage', '=', 'closed_won'), rule('tags', 'in', ['vip'])) }));
  });

  it('--filter takes the service JSON with labels for fieldIds, inline, from @FILE or from stdin, and joins --where with and', async ({
    tmp,
  }) => {
    const json = JSON.stringify({
      combinator: 'or',
      rules: [
        { fieldId: 'Stage', operator: '=', value: 'Closed Won' },
        { fieldId: 'Employees', operator: '<', value: 50 },
      ],
    });
    const expected = await serviceIds({ filters: any(rule('stage', '=', 'closed_won'), rule('employees', '<', 50)) });
    const dir = tmp;
    await writeFile(join(dir, 'filter.json'), json);
    const runs = await Promise.all([
      cliIds(['--filter', json]),
      cliIds(['--filter', `@${join(dir, 'filter.json')}`]),
      cliIds(['--filter', '-'], json),
      cliIds(['--filter', json, '--where', 'Qualified = true']),
    ]);
    expect(runs.slice(0, 3)).toEqual([expected, expected, expected]);
    expect(runs[3]).toEqual(
      await serviceIds({ filters: all(any(rule('stage', '=', 'closed_won'), rule('employees', '<', 50)), rule('qualified', '=', true)) }),
    );
  });
});

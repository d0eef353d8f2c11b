import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { FilterOracle, lower } from './filter-oracle.js';
import { allRows, post, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md 4.5: text-like operators (case-insensitive), null/notNull, groups, and search text.

describe('text filters and search', () => {
  let emu: RunningEmulator;
  let leads: FilterOracle;
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions())).emu;
    leads = await FilterOracle.of(emu, 'Leads');
  });

  const name = (row: Parameters<FilterOracle['value']>[0]) => lower(leads.value(row, 'name') ?? '');

  it('= and != compare case-insensitively; != keeps empty cells', async () => {
    await leads.expectRule('name', '=', 'SMITH, JOHN', (row) => name(row) === 'smith, john');
    await leads.expectRule('email_2', '!=', '00123', (row) => leads.value(row, 'email_2') !== '00123');
    expect(leads.rows.some((row) => leads.value(row, 'email_2') === undefined)).toBe(true);
  });

  it('contains, doesNotContain and startsWith', async () => {
    await leads.expectRule('name', 'contains', 'LOVE', (row) => name(row).includes('love'));
    await leads.expectRule('name', 'doesNotContain', 'a', (row) => !name(row).includes('a'));
    await leads.expectRule('email', 'startsWith', 'Ada.', (row) => lower(leads.value(row, 'email')).startsWith('ada.'));
    await leads.expectRule('website', 'contains', 'HOOLI', (row) => lower(leads.value(row, 'website')).includes('hooli'));
  });

  it('containsAnyOf / doesNotContainAnyOf and in / notIn', async () => {
    await leads.expectRule('name', 'containsAnyOf', ['turing', 'HOPPER'], (row) => /turing|hopper/.test(name(row)));
    await leads.expectRule(
      'logo',
      'doesNotContainAnyOf',
      ['hooli', 'initech'],
      (row) => !/hooli|initech/.test(lower(leads.value(row, 'logo'))),
    );
    await leads.expectRule('name', 'in', ['00123', 'smith, john'], (row) => ['00123', 'smith, john'].includes(name(row)));
    await leads.expectRule('name', 'notIn', ['00123'], (row) => name(row) !== '00123');
  });

  it('compares a formula number as text', async () => {
    const score = String(leads.value(leads.rows[0]!, 'score'));
    await leads.expectRule('score', '=', score, (row) => String(leads.value(row, 'score')) === score);
  });

  it('null and notNull look at empty cells, on any type', async () => {
    for (const field of ['employees', 'tags', 'address', 'last_contacted', 'qualified', 'owner', 'notes']) {
      await leads.expectRule(field, 'null', undefined, (row) => leads.value(row, field) === undefined);
      await leads.expectRule(field, 'notNull', undefined, (row) => leads.value(row, field) !== undefined);
    }
  });

  it('combines rules with and/or in nested groups', async () => {
    const filters = {
      combinator: 'and',
      rules: [
        { combinator: 'or', rules: [leads.rule('name', 'contains', 'ada'), leads.rule('name', 'contains', 'grace')] },
        leads.rule('employees', '>', 1000),
      ],
    };
    await leads.expectFilter(filters, (row) => /ada|grace/.test(name(row)) && Number(leads.value(row, 'employees') ?? 0) > 1000);
  });

  it('treats an empty group as no filter: newest first', async () => {
    const plain = (await allRows(emu, leads.info.table.id)).map((row) => row.id);
    const empty = (await allRows(emu, leads.info.table.id, { filters: { rules: [] } })).map((row) => row.id);
    expect(empty).toEqual(plain);
  });

  it('searches every cell case-insensitively, objects as JSON text, and combines with filters', async () => {
    const search = async (q: string) => (await allRows(emu, leads.info.table.id, { q })).map((row) => row.id).sort();
    const expected = (needle: string) =>
      leads.rows
        .filter((row) => Object.values(row.cells).some((cell) => lower(cell.value).includes(needle)))
        .map((row) => row.id)
        .sort();
    for (const q of ['NAIROBI', '山田', 'rock"', 'main st']) {
      const ids = await search(q);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids).toEqual(expected(q.toLowerCase()));
    }
    // A match beyond the 200 characters served still counts: the search reads the stored value.
    expect(await search('champion')).toEqual(expected('long account history'));
    await leads.expectFilter(
      { rules: [leads.rule('qualified', '=', true)] },
      (row) => leads.value(row, 'qualified') === true && expected('ada').includes(row.id),
      {
        query: 'ADA',
      },
    );
  });

  it('GET rows?q= gives the same rows as the query endpoint', async () => {
    const viaGet = (await post(emu, `/tables/${leads.info.table.id}/rows/query`, { q: 'hopper' })).body.rows.map(
      (row: { id: string }) => row.id,
    );
    const reply = await fetch(`${emu.baseUrl}/tables/${leads.info.table.id}/rows?q=HOPPER`, {
      headers: { authorization: `Bearer ${emu.apiKey}` },
    });
    expect(((await reply.json()) as { rows: Array<{ id: string }> }).rows.map((row) => row.id)).toEqual(viaGet);
  });
});

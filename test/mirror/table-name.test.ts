import { describe, expect, it } from 'vitest';
import { mirrorTableName, snakeName } from '../../src/mirror/table-name.js';

describe('snakeName', () => {
  it.each([
    ['🚀 Leads', 'leads'],
    ['Closed Won (2024)', 'closed_won_2024'],
    ['Café Müller', 'cafe_muller'],
    ['  --Edge  Cases--  ', 'edge_cases'],
    ['2024 Leads', 't_2024_leads'],
    ['📥', 'table'],
    ['山田', 'table'],
  ])('%j → %s', (name, expected) => expect(snakeName(name)).toBe(expected));
});

describe('mirrorTableName', () => {
  it('prefixes the workspace when the name is taken, then counts', () => {
    const taken = new Set(['contacts']);
    expect(mirrorTableName({ name: 'Leads', workspaceName: 'Sales' }, taken)).toBe('leads');
    expect(mirrorTableName({ name: 'Contacts', workspaceName: 'Marketing' }, taken)).toBe('marketing_contacts');
    taken.add('marketing_contacts');
    expect(mirrorTableName({ name: 'Contacts', workspaceName: 'Marketing' }, taken)).toBe('marketing_contacts_2');
  });
});

describe("mirrorTableName: names of DuckDB's catalog", () => {
  it.each([
    ['duckdb_tables', 'sales_duckdb_tables'],
    ['sqlite_master', 'sales_sqlite_master'],
    ['information_schema', 'sales_information_schema'],
    ['pg_catalog', 'sales_pg_catalog'],
  ])('a table named %s is %s: it shadows nothing SHOW TABLES or the hints rely on', (name, expected) => {
    expect(mirrorTableName({ name, workspaceName: 'Sales' }, new Set())).toBe(expected);
  });

  it('a workspace whose prefix makes a catalog name counts on', () => {
    expect(mirrorTableName({ name: 'Catalog', workspaceName: 'PG' }, new Set(['catalog']))).toBe('t_pg_catalog');
  });
});

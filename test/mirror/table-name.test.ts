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

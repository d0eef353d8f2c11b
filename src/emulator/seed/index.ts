import { pick } from './prng.js';
import { EmulatorState } from '../store/state.js';
import { options, SeedBuilder } from './builder.js';
import { seedLeads, type Member } from './leads.js';
import { seedMarketingTables } from './marketing.js';
import { seedSalesTables } from './sales.js';
import { FIRST_NAMES, LAST_NAMES } from './samples.js';
import type { SeedName } from './seed-names.js';

/** Fixed keys, printed in the ready line; they only open this local emulator. */
export const DEMO_KEYS = {
  Acme: 'tds_demo_acme_7Kq2xV9mPz4LwR8n',
  Globex: 'tds_demo_globex_3Hf8sJ2kQp6TyU1c',
} as const;

/** The same state for the same seed and clock. */
export function buildSeed(name: SeedName, now: number): EmulatorState {
  const state = new EmulatorState();
  const seed = new SeedBuilder(state, 20_240_601, now);
  const acme = seed.org('Acme', DEMO_KEYS.Acme);
  if (name === 'empty') return state;

  const members: Member[] = FIRST_NAMES.slice(0, 5).map((first, i) => ({
    id: seed.id('usr_', 12),
    name: `${first} ${LAST_NAMES[i]}`,
    email: `${first.toLowerCase()}@acme.example`,
  }));
  const sales = seed.workspace(acme, 'Sales');
  const marketing = seed.workspace(acme, 'Marketing');
  const people = seed.workspace(acme, 'People Ops', true);
  seedLeads(seed, sales, members);
  seedSalesTables(seed, sales);
  seedMarketingTables(seed, marketing);

  const salaries = seed.table(people, { name: 'Salaries', emoji: ':moneybag:' }, [
    { label: 'Employee', type: 'text' },
    { label: 'Salary', type: 'number' },
    { label: 'Currency', type: 'select', options: options(['US Dollar', 'USD'], ['Euro', 'EUR'], ['Pound Sterling', 'GBP']) },
    { label: 'Start Date', type: 'date' },
  ]);
  seed.addRows(
    salaries,
    Array.from({ length: 15 }, (_, i) => ({
      employee: `${pick(FIRST_NAMES, seed.random())} ${pick(LAST_NAMES, seed.random())}`,
      salary: 40_000 + Math.floor(seed.random() * 120) * 1_000,
      currency: ['USD', 'EUR', 'GBP'][i % 3],
      start_date: new Date(Date.UTC(2015 + (i % 10), i % 12, 1 + i)).toISOString(),
    })),
  );

  const globex = seed.org('Globex', DEMO_KEYS.Globex);
  const accounts = seed.table(seed.workspace(globex, 'Globex HQ'), { name: 'Accounts', emoji: null }, [
    { label: 'Name', type: 'text' },
    { label: 'Plan', type: 'select', options: options(['Basic', 'basic'], ['Premium', 'premium']) },
  ]);
  seed.addRows(
    accounts,
    ['Hank Scorpio', 'Frank Grimes', 'Mindy Simmons', 'Lenny Leonard', 'Carl Carlson'].map((name, i) => ({
      name,
      plan: i % 2 ? 'premium' : 'basic',
    })),
  );
  return state;
}

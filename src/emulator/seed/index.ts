// emulator/seed/: the data an emulator starts with. Surface: buildSeed and DEMO_KEYS (this file: the demo
// organization with its sales and marketing tables), seeded randomness (prng.ts) and sample words and fake
// values (fake-values.ts), which churn, faults and the generated tables draw from too; inside: the leads
// table (leads.ts) and the builder (builder.ts).

import { pick } from './prng.js';
import { EmulatorState } from '../store/state.js';
import { options, SeedBuilder, DAY_MS } from './builder.js';
import { seedLeads, type Member } from './leads.js';
import { FIRST_NAMES, LAST_NAMES, CITIES, COMPANIES, LONG_NOTE, slug } from './fake-values.js';
import type { SeedName } from '../options.js';
import type { WorkspaceRec } from '../store/model.js';
import { webhookRow } from '../webhook/intake.js';

export { fakeValue, FIRST_NAMES, LAST_NAMES, LONG_NOTE, NOTES } from './fake-values.js';
export { createPrng, hash32, pick, type Prng } from './prng.js';

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

/** Marketing / "Contacts", the webhook-fed "Signups" and "Inbox", and "Empty". */
export function seedMarketingTables(seed: SeedBuilder, marketing: WorkspaceRec): void {
  const r = seed.random;
  const marketingContacts = seed.table(marketing, { name: 'Contacts', emoji: null }, [
    { label: 'Name', type: 'text' },
    { label: 'Email', type: 'email' },
    { label: 'Source', type: 'select', options: options(['Webinar', 'webinar'], ['Ads', 'ads'], ['Referral', 'referral']) },
  ]);
  seed.addRows(
    marketingContacts,
    contacts(seed, 10).map((contact) => ({ ...contact, source: pick(['webinar', 'ads', 'referral'], r()) })),
  );

  const signups = seed.table(marketing, { name: 'Signups', emoji: ':inbox_tray:', webhook: true }, [
    { label: 'Payload', type: 'webhook' },
    { label: 'Email', type: 'email', mapKey: 'email' },
    { label: 'Name', type: 'text', mapKey: 'name' },
    { label: 'Plan', type: 'select', mapKey: 'plan', options: options(['Free', 'free'], ['Pro', 'pro'], ['Team', 'team']) },
    { label: 'Seats', type: 'number', mapKey: 'seats' },
    { label: 'City', type: 'text', mapKey: 'address.city' },
  ]);
  const posted = contacts(seed, 10).map((contact, i) => ({
    email: contact.email,
    name: contact.name,
    plan: pick(['free', 'pro', 'team'], r()),
    ...(i % 3 === 1 ? {} : { seats: 1 + Math.floor(r() * 50) }),
    address: { city: pick(CITIES, r()), country: 'US' },
    utm: { source: pick(['newsletter', 'twitter', 'search'], r()) },
  }));
  signups.rows.append(
    posted.map((object, i) =>
      webhookRow(signups.table, object, seed.id('row_', 16), Math.floor(seed.now - (10 - i) * DAY_MS + r() * 3_600_000)),
    ),
  );

  seedInbox(seed, marketing);

  seed.table(marketing, { name: 'Empty', emoji: null }, [
    { label: 'Title', type: 'text' },
    { label: 'Body', type: 'text' },
  ]);
}

/**
 * The webhook-fed "Inbox": Payload and Email (mapped from the posted key "email"), then two action columns
 * that enrich each row that arrives: Domain (the domain of Email; failed when it has none) and Company (a name
 * from that domain), which waits for Domain.
 */
function seedInbox(seed: SeedBuilder, marketing: WorkspaceRec): void {
  const inbox = seed.table(marketing, { name: 'Inbox', emoji: ':incoming_envelope:', webhook: true }, [
    { label: 'Payload', type: 'webhook' },
    { label: 'Email', type: 'email', mapKey: 'email' },
  ]);
  const [domain, company] = seed.addFields(
    inbox,
    [
      { label: 'Domain', type: 'action' },
      { label: 'Company', type: 'action' },
    ],
    20_250_101,
  );
  domain!.action = { from: inbox.field('email').id, derive: 'domain' };
  company!.action = { dependsOn: domain!.id, derive: 'company' };
}

/** Sales / "Companies", "Contacts" and "Edge Cases". */
export function seedSalesTables(seed: SeedBuilder, sales: WorkspaceRec): void {
  seedCompanies(seed, sales);
  const salesContacts = seed.table(sales, { name: 'Contacts', emoji: null }, [
    { label: 'Name', type: 'text' },
    { label: 'Email', type: 'email' },
    { label: 'Company', type: 'text' },
  ]);
  seed.addRows(
    salesContacts,
    contacts(seed, 10).map((contact) => ({ ...contact, company: pick(COMPANIES, seed.random()) })),
  );
  seedEdgeCases(seed, sales);
}

function seedCompanies(seed: SeedBuilder, sales: WorkspaceRec): void {
  const r = seed.random;
  const companies = seed.table(sales, { name: 'Companies', emoji: ':office:' }, [
    { label: 'Name', type: 'text' },
    { label: 'Domain', type: 'url' },
    {
      label: 'Industry',
      type: 'select',
      options: options(['Software', 'software'], ['Manufacturing', 'manufacturing'], ['Retail', 'retail'], ['Finance', 'finance']),
    },
    { label: 'Employees', type: 'number' },
    { label: 'Founded', type: 'date' },
    { label: 'Public', type: 'boolean' },
    { label: 'HQ', type: 'object' },
  ]);
  seed.addRows(
    companies,
    Array.from({ length: 40 }, (_, i) => {
      const name = i < COMPANIES.length ? COMPANIES[i]! : `${pick(COMPANIES, r())} ${i}`;
      return {
        name,
        domain: `https://${slug(name)}.example`,
        industry: pick(['software', 'manufacturing', 'retail', 'finance'], r()),
        employees: Math.floor(r() * 20_000) + 5,
        founded: new Date(Date.UTC(1950 + Math.floor(r() * 70), Math.floor(r() * 12), 1 + Math.floor(r() * 28))).toISOString(),
        public: r() < 0.3,
        hq: { city: pick(CITIES, r()) },
      };
    }),
  );
}

function seedEdgeCases(seed: SeedBuilder, sales: WorkspaceRec): void {
  const edge = seed.table(sales, { name: 'Edge Cases', emoji: null }, [
    { label: '_id', type: 'text', name: 'external_id' },
    { label: 'Value', type: 'text', name: 'value' },
    { label: 'Value', type: 'number', name: 'value_2' },
    { label: 'Value', type: 'text', name: 'value_3' },
    { label: 'Long Text', type: 'text', previewOnly: true },
    { label: 'Count', type: 'number' },
    { label: 'Choice', type: 'select', options: options(['Alpha', 'opt_1x9'], ['Beta', 'opt_2k4'], ['Gamma', 'opt_3m7']) },
  ]);
  const counts = [0, -42, 3.5, 1e-7, 12_345_678_901_234, 1.5e300, 7, -0.25, 100, 2, 99_999, 1];
  seed.addRows(
    edge,
    counts.map((count, i) => ({
      external_id: `EXT-${String(i).padStart(4, '0')}`,
      value: i % 4 === 3 ? undefined : `v${i}`,
      value_2: i % 3 === 2 ? undefined : i * 10,
      value_3: i % 2 ? `third ${i}` : undefined,
      long_text: i % 3 === 0 ? `${LONG_NOTE} (#${i})` : `short ${i}`,
      count,
      choice: ['opt_1x9', 'opt_2k4', 'opt_3m7'][i % 3],
    })),
    30,
  );
}

export function contacts(seed: SeedBuilder, count: number): Array<{ name: string; email: string }> {
  return Array.from({ length: count }, (_, i) => {
    const first = pick(FIRST_NAMES, seed.random());
    const last = pick(LAST_NAMES, seed.random());
    return { name: `${first} ${last}`, email: `${slug(first)}.${slug(last)}${i}@contacts.example` };
  });
}

import { pick } from './prng.js';
import type { WorkspaceRec } from '../store/model.js';
import { options, type SeedBuilder } from './builder.js';
import { CITIES, COMPANIES, FIRST_NAMES, LAST_NAMES, LONG_NOTE, slug } from './samples.js';

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

import type { CellStatus } from '../../service/index.js';
import { pick } from './prng.js';
import { DAY_MS, FullCell, options, type FieldDefinition, type SeedRow, type SeedBuilder, type SeedTable } from './builder.js';
import { CITIES, COMPANIES, FIRST_NAMES, LAST_NAMES, LONG_NOTE, NOTES, slug } from './fake-values.js';
import type { WorkspaceRec } from '../store/model.js';

export interface Member {
  id: string;
  name: string;
  email: string;
}

/** A column of every type. */
const LEADS_FIELDS: FieldDefinition[] = [
  { label: 'Name', type: 'text' },
  { label: 'Email', type: 'email' },
  { label: 'Email', type: 'text', name: 'email_2' },
  { label: 'Phone', type: 'phone_number' },
  { label: 'Website', type: 'url' },
  { label: 'Logo', type: 'image' },
  { label: 'Employees', type: 'number' },
  { label: 'Qualified', type: 'boolean' },
  { label: 'Last Contacted', type: 'date' },
  {
    label: 'Stage',
    type: 'select',
    options: options(
      ['New', 'new'],
      ['Contacted', 'contacted'],
      ['Qualified', 'qualified'],
      ['Closed Won', 'closed_won'],
      ['Closed Lost', 'closed_lost'],
    ),
  },
  {
    label: 'Tags',
    type: 'multi_select',
    options: options(['VIP', 'vip'], ['Enterprise', 'enterprise'], ['SMB', 'smb'], ['Partner', 'partner'], ['Newsletter', 'newsletter']),
  },
  { label: 'Address', type: 'object' },
  { label: 'Score', type: 'formula' },
  { label: 'Enrich', type: 'action' },
  { label: 'Owner', type: 'member' },
  { label: 'Notes', type: 'input' },
  { label: 'Created At', type: 'date', isSystem: true },
];

// Days from today, including both sides of each preset's edge (last7Days, last30Days, …) so filters can be told apart.
const CONTACTED_DAYS = [
  0, -1, 1, 2, -2, -3, -4, -6, -7, -9, -13, -14, -16, -25, -29, -30, -35, -50, -59, -60, -70, -89, -90, -95, -130, -179, -180, -200, -280,
  -364, -365, -370, -500,
];
const STAGES = ['new', 'contacted', 'qualified', 'closed_won', 'closed_lost'];
const TAGS = ['vip', 'enterprise', 'smb', 'partner', 'newsletter'];

/** Sales / "Leads": a column of every type, cells that test every client path. */
export function seedLeads(seed: SeedBuilder, sales: WorkspaceRec, members: Member[]): SeedTable {
  const leads = seed.table(sales, { name: 'Leads', emoji: ':rocket:' }, LEADS_FIELDS);
  // Rows that arrive later (churn, admin routes) run Enrich: the domain of their Email.
  leads.field('enrich').action = { from: leads.field('email').id, derive: 'domain' };
  const specs: SeedRow[] = [];
  for (let i = 0; i < 250; i += 1) specs.push(leadSpec(seed, i, members));
  addOddCases(specs);
  seed.addRows(
    leads,
    specs,
    400,
    members.map((member) => member.id),
  );
  return leads;
}

function leadSpec(seed: SeedBuilder, i: number, members: Member[]): SeedRow {
  const r = seed.random;
  const startOfToday = Math.floor(seed.now / DAY_MS) * DAY_MS;
  const first = pick(FIRST_NAMES, r());
  const last = pick(LAST_NAMES, r());
  const company = pick(COMPANIES, r());
  const domain = `${slug(company)}.example`;
  const tagCount = Math.floor(r() * 4);
  return {
    name: `${first} ${last}`,
    email: `${slug(first)}.${slug(last)}@${domain}`,
    email_2: r() < 0.6 ? `${slug(first)}${i}@mail.example` : undefined,
    phone: r() < 0.85 ? `+1 555 01${String(i % 100).padStart(2, '0')}` : undefined,
    website: `https://www.${domain}`,
    logo: r() < 0.7 ? `https://img.example/logos/${slug(company)}.png` : undefined,
    employees: r() < 0.9 ? Math.floor(r() ** 3 * 50_000) + 1 : undefined,
    qualified: r() < 0.85 ? r() < 0.5 : undefined,
    last_contacted:
      r() < 0.9
        ? new Date(startOfToday + CONTACTED_DAYS[i % CONTACTED_DAYS.length]! * DAY_MS + Math.floor(r() * DAY_MS)).toISOString()
        : undefined,
    stage: r() < 0.95 ? pick(STAGES, r()) : undefined,
    tags: tagCount > 0 ? [...new Set(Array.from({ length: tagCount }, () => pick(TAGS, r())))] : undefined,
    address:
      r() < 0.8
        ? {
            street: `${1 + Math.floor(r() * 999)} Main St`,
            city: pick(CITIES, r()),
            postalCode: String(Math.floor(r() * 90_000) + 10_000),
            country: 'US',
          }
        : undefined,
    score: Math.round(r() * 1000) / 10,
    enrich: enrichCell(i, domain),
    owner: r() < 0.85 ? pick(members, r()) : undefined,
    notes: r() < 0.6 ? pick(NOTES, r()) : undefined,
  };
}

/** Names, notes and addresses that test quoting, Unicode, formulas, long text and empty cells. */
function addOddCases(specs: SeedRow[]): void {
  Object.assign(specs[3]!, { name: 'Smith, John', notes: 'Said: "call me after 5pm", then hung up' });
  Object.assign(specs[7]!, { name: 'Dwayne "The Rock" Johnson', notes: 'Line one\nLine two\r\nLine three' });
  Object.assign(specs[11]!, { name: '00123', phone: '0044 20 7946 0958', email_2: '00123' });
  Object.assign(specs[15]!, { name: '山田 太郎', notes: '日本語のメモ：来週フォローアップ。' });
  Object.assign(specs[19]!, { name: '🚀 Rocket Rider', notes: 'Loves emoji 🎉🔥 and ünïcödé' });
  Object.assign(specs[23]!, { name: "Siobhán O'Brien", notes: LONG_NOTE });
  Object.assign(specs[27]!, { name: '=SUM(A1:A2)', notes: '+1 starts like a formula' });
  Object.assign(specs[31]!, { name: '  padded name  ', notes: `${LONG_NOTE} ${LONG_NOTE}` });
  Object.assign(specs[35]!, {
    address: { street: '1 Long Road', city: 'Lisbon', postalCode: '1000-001', country: 'PT', directions: LONG_NOTE },
  });
  Object.assign(specs[39]!, {
    email_2: undefined,
    phone: undefined,
    logo: undefined,
    employees: undefined,
    tags: undefined,
    notes: undefined,
  });
}

/** Action cells cycle through every status; failed ones carry an error, successful ones a value (or none found). */
function enrichCell(i: number, domain: string): FullCell | undefined {
  const statuses: Array<CellStatus | null | 'empty' | 'notFound'> = [
    'success',
    'failed',
    'skipped',
    'stopped',
    'queued',
    'waiting',
    'running',
    'manual',
    null,
    'empty',
    'notFound',
    'success',
  ];
  const status = statuses[i % statuses.length]!;
  switch (status) {
    case 'empty':
      return undefined;
    case 'notFound':
      return new FullCell({ status: 'success' });
    case 'success':
      return new FullCell({ status, value: { domain, industry: i % 2 ? 'Software' : 'Manufacturing', employees: 10 + (i % 7) * 100 } });
    case 'failed':
      return new FullCell({
        status,
        errorMessage:
          i % 3 === 0 ? { code: 'RATE_LIMITED', message: 'Provider rate limit reached' } : `Domain ${domain} could not be resolved`,
      });
    case 'manual':
      return new FullCell({ status, value: 'Entered by hand' });
    default:
      return new FullCell({ status });
  }
}

import type { StatsBench } from './stats-bench.js';

// A table whose figures are known by construction: 15 rows over three days, every run state, every
// kind of value, two columns labelled "Email", a select value outside the options, multi_select
// items, cells the service cuts at 200 characters, and failed cells whose messages are one cause
// across their domains.

export const FIXTURE_NAME = 'Stats Fixture';

const FIELDS = [
  { label: 'Name', type: 'text' },
  { label: 'Email', type: 'email' },
  { label: 'Email', type: 'text' },
  { label: 'Amount', type: 'number' },
  { label: 'Active', type: 'boolean' },
  { label: 'Due', type: 'date' },
  {
    label: 'Stage',
    type: 'select',
    options: [
      { label: 'New', value: 'new' },
      { label: 'Won', value: 'won' },
    ],
  },
  {
    label: 'Tags',
    type: 'multi_select',
    options: [
      { label: 'VIP', value: 'vip' },
      { label: 'SMB', value: 'smb' },
    ],
  },
  { label: 'Address', type: 'object' },
  { label: 'Notes', type: 'text' },
  { label: 'Enrich', type: 'action' },
];

const LONG = 'x'.repeat(300);
const RATE_LIMITED = { code: 'RATE_LIMITED', message: 'Provider rate limit reached' };

/** Cells of row i (by label; the second "Email" by its field ID, filled in when the table exists). */
const ROWS: Array<Record<string, unknown>> = [
  {
    Name: 'Ada',
    Email: 'e0@firm.example',
    Amount: 1,
    Active: true,
    Due: '2025-01-01T00:00:00.000Z',
    Stage: 'new',
    Tags: ['vip'],
    Address: { city: 'Oslo' },
    Notes: LONG,
    Enrich: { status: 'success', value: { domain: 'a.example' } },
  },
  {
    Name: 'Ada',
    Email: 'e1@firm.example',
    Amount: 2,
    Active: true,
    Due: '2025-06-30T12:00:00.000Z',
    Stage: 'new',
    Tags: ['vip', 'smb'],
    Address: { city: 'Oslo' },
    Notes: LONG,
    Enrich: { status: 'success', value: { domain: 'b.example' } },
  },
  {
    Name: 'Ada',
    Email: 'e2@firm.example',
    Amount: 2,
    Active: true,
    Due: '2024-12-31T23:59:59.000Z',
    Stage: 'new',
    Tags: ['vip'],
    Address: { city: 'Rome' },
    Notes: 'short',
    Enrich: { status: 'failed', errorMessage: 'Domain a.example could not be resolved' },
  },
  {
    Name: 'Ada',
    Email: 'e3@firm.example',
    Amount: 3.5,
    Active: true,
    Stage: 'new',
    Tags: ['vip', 'smb'],
    Enrich: { status: 'failed', errorMessage: 'Domain b.example could not be resolved' },
  },
  {
    Name: 'Ada',
    Email: 'e4@firm.example',
    Amount: 10,
    Active: false,
    Stage: 'won',
    Tags: ['vip'],
    Enrich: { status: 'failed', errorMessage: 'Domain c.example could not be resolved' },
  },
  {
    Name: 'Bo',
    Email: 'e5@firm.example',
    Amount: -4,
    Active: false,
    Stage: 'won',
    Tags: ['smb'],
    Enrich: { status: 'failed', errorMessage: RATE_LIMITED },
  },
  { Name: 'Bo', Email: 'e6@firm.example', Amount: 'not a number', Active: false, Stage: 'lost', Tags: [], Enrich: { status: 'failed' } },
  { Name: 'Bo', Email: 'e7@firm.example', Enrich: { status: 'skipped' } },
  { Name: 'Cy', Enrich: { status: 'stopped' } },
  { Name: 'Cy', Enrich: { status: 'queued' } },
  { Name: '', Enrich: { status: 'waiting' } },
  { Enrich: { status: 'running' } },
  { Enrich: { status: 'manual', value: 'typed' } },
  { Enrich: null },
  { Enrich: { value: 'orphan' } },
];
/** The second "Email" column ("Email (2)"): rows 0–5. */
const SECOND_EMAIL_ROWS = 6;
const DAYS = ['2025-05-01', '2025-05-02', '2025-05-04'];

export interface Fixture {
  tableId: string;
  /** Row IDs, in the order of ROWS. */
  ids: string[];
}

export async function makeFixture(bench: StatsBench, name = FIXTURE_NAME): Promise<Fixture> {
  const created = await bench.admin<{ table: { id: string }; fields: Array<{ id: string; label: string }> }>('POST', '/tables', {
    workspace: 'Sales',
    name,
    fields: FIELDS,
  });
  // by field ID: two columns share the label Email
  const [firstEmail, secondEmail] = created.fields.filter((field) => field.label === 'Email').map((field) => field.id);
  const idOf = (label: string): string => (label === 'Email' ? firstEmail! : created.fields.find((field) => field.label === label)!.id);
  const rows = ROWS.map((cells, i) => ({
    createdAt: `${DAYS[Math.floor(i / 5)]}T${String(8 + (i % 5)).padStart(2, '0')}:00:00.000Z`,
    cells: {
      ...Object.fromEntries(Object.entries(cells).map(([label, value]) => [idOf(label), value])),
      ...(i < SECOND_EMAIL_ROWS ? { [secondEmail!]: 'same' } : {}),
    },
  }));
  const added = await bench.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${created.table.id}/rows`, { rows });
  return { tableId: created.table.id, ids: added.rows.map((row) => row.id) };
}

/** The figures of every column but Enrich's errors (which name row IDs), written out by hand. */
export const EXPECTED_COLUMNS = [
  {
    key: 'Name',
    label: 'Name',
    type: 'text',
    filled: 10,
    distinct: 3,
    top: [
      ['Ada', 5],
      ['Bo', 3],
      ['Cy', 2],
    ],
    truncated: 0,
  },
  {
    key: 'Email',
    label: 'Email',
    type: 'email',
    filled: 8,
    distinct: 8,
    top: [
      ['e0@firm.example', 1],
      ['e1@firm.example', 1],
      ['e2@firm.example', 1],
      ['e3@firm.example', 1],
      ['e4@firm.example', 1],
    ],
    truncated: 0,
  },
  { key: 'Email (2)', label: 'Email', type: 'text', filled: 6, distinct: 1, top: [['same', 6]], truncated: 0 },
  {
    key: 'Amount',
    label: 'Amount',
    type: 'number',
    filled: 6,
    distinct: 5,
    top: [
      [2, 2],
      [-4, 1],
      [1, 1],
      [3.5, 1],
      [10, 1],
    ],
    min: -4,
    max: 10,
    mean: 14.5 / 6,
    truncated: 0,
  },
  {
    key: 'Active',
    label: 'Active',
    type: 'boolean',
    filled: 7,
    distinct: 2,
    top: [
      [true, 4],
      [false, 3],
    ],
    truncated: 0,
  },
  {
    key: 'Due',
    label: 'Due',
    type: 'date',
    filled: 3,
    distinct: 3,
    top: [
      ['2024-12-31T23:59:59.000Z', 1],
      ['2025-01-01T00:00:00.000Z', 1],
      ['2025-06-30T12:00:00.000Z', 1],
    ],
    min: '2024-12-31T23:59:59.000Z',
    max: '2025-06-30T12:00:00.000Z',
    truncated: 0,
  },
  {
    key: 'Stage',
    label: 'Stage',
    type: 'select',
    filled: 7,
    distinct: 3,
    top: [
      ['New', 4],
      ['Won', 2],
      ['lost', 1],
    ],
    truncated: 0,
  },
  {
    key: 'Tags',
    label: 'Tags',
    type: 'multi_select',
    filled: 6,
    distinct: 2,
    top: [
      ['VIP', 5],
      ['SMB', 3],
    ],
    truncated: 0,
  },
  {
    key: 'Address',
    label: 'Address',
    type: 'object',
    filled: 3,
    distinct: 2,
    top: [
      [{ city: 'Oslo' }, 2],
      [{ city: 'Rome' }, 1],
    ],
    truncated: 0,
  },
  {
    key: 'Notes',
    label: 'Notes',
    type: 'text',
    filled: 3,
    distinct: 2,
    top: [
      ['x'.repeat(200), 2],
      ['short', 1],
    ],
    truncated: 2,
  },
  {
    key: 'Enrich',
    label: 'Enrich',
    type: 'action',
    filled: 4,
    distinct: 4,
    // ties in the order of the values' JSON text: "orphan", "typed", {"domain":…}
    top: [
      ['orphan', 1],
      ['typed', 1],
      [{ domain: 'a.example' }, 1],
      [{ domain: 'b.example' }, 1],
    ],
    truncated: 0,
    states: { success: 2, failed: 5, skipped: 1, stopped: 1, queued: 1, waiting: 1, running: 1, manual: 1, none: 2 },
  },
].map(({ top, ...column }) => ({
  min: null,
  max: null,
  mean: null,
  states: null,
  errors: null,
  causes: null,
  ...column,
  fill: column.filled / ROWS.length,
  top: top.map(([value, count]) => ({ value, count })),
}));

/** Enrich's causes: the three domains are one; the error object is its code and message; a failed cell without a message. */
export function expectedErrors(ids: readonly string[]) {
  const sorted = (rows: number[]) => rows.map((i) => ids[i]!).sort();
  const domainIds = sorted([2, 3, 4]);
  const messages = new Map([2, 3, 4].map((i) => [ids[i]!, `Domain ${'abc'[i - 2]}.example could not be resolved`]));
  return [
    { cause: 'Domain <domain> could not be resolved', count: 3, example: messages.get(domainIds[0]!)!, ids: domainIds },
    { cause: '(no message)', count: 1, example: null, ids: [ids[6]!] },
    { cause: 'RATE_LIMITED: Provider rate limit reached', count: 1, example: JSON.stringify(RATE_LIMITED), ids: [ids[5]!] },
  ];
}

export const EXPECTED_PER_DAY = DAYS.map((day) => ({ day, rows: 5 }));
export const FIXTURE_ROWS = ROWS.length;

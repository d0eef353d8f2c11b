import { STAGE_FIELD, TAGS_FIELD } from '../helpers/field-specs.js';
import type { Harness } from '../helpers/emulator-fixture.js';
import { addRows, makeTable, plainFields } from '../helpers/admin-tables.js';

// A table whose figures are known by construction: 15 rows over three days, every run state, every
// kind of value, two columns labelled "Email", a select value outside the options, multi_select
// items, cells the service cuts at 200 characters, and failed cells whose messages are one cause
// across their domains.

export const FIXTURE_NAME = 'Stats Fixture';

const FIELDS = [
  ...plainFields('Name text', 'Email email', 'Email text', 'Amount number', 'Active boolean', 'Due date'),
  STAGE_FIELD,
  TAGS_FIELD,
  ...plainFields('Address object', 'Notes text', 'Enrich action'),
];

const LONG = 'x'.repeat(300);
export const RATE_LIMITED = { code: 'RATE_LIMITED', message: 'Provider rate limit reached' };

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
export const DAYS = ['2025-05-01', '2025-05-02', '2025-05-04'];

export interface Fixture {
  tableId: string;
  /** Row IDs, in the order of ROWS. */
  ids: string[];
}

export async function makeFixture(harness: Harness, name = FIXTURE_NAME): Promise<Fixture> {
  const table = await makeTable(harness, name, FIELDS);
  // by field ID: two columns share the label Email
  const secondEmail = table.fields.filter((field) => field.label === 'Email')[1]!.id;
  const rows = ROWS.map((cells, i) => ({
    createdAt: `${DAYS[Math.floor(i / 5)]}T${String(8 + (i % 5)).padStart(2, '0')}:00:00.000Z`,
    cells: {
      ...Object.fromEntries(Object.entries(cells).map(([label, value]) => [table.fieldId(label), value])),
      ...(i < SECOND_EMAIL_ROWS ? { [secondEmail]: 'same' } : {}),
    },
  }));
  return { tableId: table.id, ids: await addRows(harness, table.id, rows) };
}

/** Rows of the fixture. */
export const FIXTURE_ROWS = ROWS.length;

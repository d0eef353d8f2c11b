import { DAYS, FIXTURE_ROWS, RATE_LIMITED } from './fixture.js';

// What `tds stats` must find in the fixture (fixture.ts), worked out by hand from its rows.

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
  fill: column.filled / FIXTURE_ROWS,
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

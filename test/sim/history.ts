import fc from 'fast-check';

// A history: the steps of one simulated run, as plain JSON, so that a kept file replays without fast-check.
// Steps name what they act on by number (a table, a row, a field, a moment): the number is taken modulo what
// exists when the step runs, so a step keeps a meaning when the shrinker removes the steps before it.

/** A fault on the service's reads for one client step (as --read-faults, positions counted from the step's start). */
export type ReadFault = '' | `500@${number}` | `429@${number}` | `reset@${number}` | `stall@${number}`;

/** How a client step that runs as a process ends early: a signal once the emulator has seen its `at`-th request. */
export interface Kill {
  at: number;
  signal: 'SIGKILL' | 'SIGTERM';
}

export type TableKind = 'plain' | 'action' | 'webhook';

export type Step =
  // the world, through the emulator's /_emulator/ routes and the webhook
  | { kind: 'addTable'; table: TableKind; rows: number }
  | { kind: 'removeTable'; table: number }
  | { kind: 'addRows'; table: number; count: number; old: boolean }
  | { kind: 'editRows'; table: number; at: number; count: number }
  | { kind: 'deleteRows'; table: number; at: number; count: number }
  | { kind: 'rerun'; table: number; at: number; count: number }
  | { kind: 'finishActions' }
  | { kind: 'addField'; table: number; type: FieldType; label: number }
  | { kind: 'removeField'; table: number; field: number }
  | { kind: 'retypeField'; table: number; field: number; type: FieldType }
  | { kind: 'relabelField'; table: number; field: number; label: number }
  | { kind: 'moveClock'; hours: number }
  | { kind: 'webhookRows'; table: number; count: number }
  | { kind: 'flushIntake' }
  // the client: the real tds
  | {
      kind: 'sync';
      mode: 'plain' | 'full' | 'maxStale' | 'follow';
      /** the tables named (by number), or none: the mirror's tables */
      tables: number[];
      changes: boolean;
      fault: ReadFault;
      kill?: Kill;
      /** --lake (the sim's lake folder) */
      lake?: boolean;
      /** --prune-history SPAN */
      prune?: '' | PruneSpan;
      /** with --changes: the consumer closes its end of the pipe after this many bytes (0: reads all) */
      closeAfter?: number;
    }
  | { kind: 'compactLake' }
  | {
      kind: 'check';
      /** the rows check's minimum, as a share of the table's rows now (per mille; above 1000: fails) */
      rowsMin: number;
      /** the fill check's minimum share of column A */
      fillMin: number;
      /** a check over a column no table has (an error: exit 9) */
      broken: boolean;
      receiver: Receiver;
      /** tds is SIGKILLed once the receiver holds its POST (the receiver then never answers) */
      killDuringPost: boolean;
    }
  | { kind: 'diff'; table: number; since: number; until: number }
  | {
      kind: 'push';
      table: number;
      records: number;
      batchSize: number;
      fault: WebhookFault;
      latencyMs: number;
      byKey: boolean;
      big: boolean;
      /** a webhook budget (the emulator's and tds's `webhook-budget`) in submissions; 0: none */
      budget?: number;
    }
  | { kind: 'read'; table: number; what: 'sql' | 'stats' | 'syncedStats' }
  // the emulator: churn's changes over `ms` at its rates; a restart from its data file (churn before and after)
  | { kind: 'churn'; ms: number }
  | { kind: 'restart'; churnMs: number };

export type PruneSpan = '1m' | '2h';
/** How the notification receiver answers a check's POST: 204, 500, never (tds's bounded wait ends it), or a reset after the body. */
export type Receiver = 'ok' | '500' | 'hang' | 'reset';
export type FieldType = 'text' | 'number' | 'boolean' | 'date' | 'select' | 'object';
export type WebhookFault = '' | `500@${number}` | `500pre@${number}` | `503@${number}` | `reset@${number}`;

export interface History {
  /** the seed it was generated from (none for a hand-edited one) */
  seed?: number;
  steps: Step[];
}

/** Labels a new or relabelled field takes: plain, the label of another field, reserved keys, hostile text. */
export const LABELS = [
  'C',
  'A',
  'N',
  'B',
  '_id',
  '_syncId',
  '_updatedAt',
  '_change',
  'A.status',
  'A (2)',
  'Ünïcode 🚀',
  'select',
  'Robert"); DROP TABLE sim_1; --',
  '  spaced  ',
  'x'.repeat(80),
  'ORDER',
] as const;

const FIELD_TYPES: FieldType[] = ['text', 'number', 'boolean', 'date', 'select', 'object'];

const index = fc.nat({ max: 999 });
const fieldType = fc.constantFrom(...FIELD_TYPES);
const readFault: fc.Arbitrary<ReadFault> = fc.oneof(
  { weight: 5, arbitrary: fc.constant('' as const) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }).map((n): ReadFault => `500@${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map((n): ReadFault => `429@${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map((n): ReadFault => `reset@${n}`) },
);
const kill: fc.Arbitrary<Kill | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.record({
      at: fc.integer({ min: 1, max: 14 }),
      signal: fc.constantFrom('SIGKILL' as const, 'SIGKILL' as const, 'SIGTERM' as const),
    }),
  },
);
const webhookFault: fc.Arbitrary<WebhookFault> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('' as const) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 6 }).map((n): WebhookFault => `500@${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }).map((n): WebhookFault => `500pre@${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }).map((n): WebhookFault => `503@${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }).map((n): WebhookFault => `reset@${n}`) },
);

const rowCount = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 100, max: 1600 }));

/** Every kind of step, weighted for breadth that finds bugs: data changes and syncs most often. */
export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('addTable' as const),
      table: fc.constantFrom<TableKind>('plain', 'action', 'webhook'),
      rows: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 500, max: 4000 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeTable' as const), table: index }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('addRows' as const), table: index, count: rowCount, old: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('editRows' as const), table: index, at: index, count: fc.integer({ min: 1, max: 30 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('deleteRows' as const), table: index, at: index, count: fc.integer({ min: 1, max: 20 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('rerun' as const), table: index, at: index, count: fc.integer({ min: 1, max: 20 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'finishActions' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('addField' as const),
      table: index,
      type: fieldType,
      label: fc.nat({ max: LABELS.length - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeField' as const), table: index, field: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retypeField' as const), table: index, field: index, type: fieldType }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('relabelField' as const),
      table: index,
      field: index,
      label: fc.nat({ max: LABELS.length - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('moveClock' as const), hours: fc.constantFrom(1, 6, 30) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('webhookRows' as const), table: index, count: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flushIntake' as const }) },
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant('sync' as const),
      mode: fc.constantFrom('plain' as const, 'plain' as const, 'plain' as const, 'full' as const, 'maxStale' as const, 'follow' as const),
      tables: fc.oneof(fc.constant([] as number[]), fc.array(index, { minLength: 1, maxLength: 2 })),
      changes: fc.boolean(),
      fault: readFault,
      kill,
      lake: fc.boolean(),
      prune: fc.constantFrom<'' | PruneSpan>('', '', '', '', '1m', '2h'),
      closeAfter: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }) }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'compactLake' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('check' as const),
      rowsMin: fc.constantFrom(0, 500, 999, 1000, 1001, 2000),
      fillMin: fc.constantFrom(0, 0.5, 0.95, 1),
      broken: fc.boolean(),
      receiver: fc.constantFrom<Receiver>('ok', 'ok', 'ok', '500', '500', 'reset', 'hang'),
      killDuringPost: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('diff' as const), table: index, since: index, until: index }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      table: index,
      records: fc.integer({ min: 1, max: 120 }),
      batchSize: fc.integer({ min: 1, max: 20 }),
      fault: webhookFault,
      latencyMs: fc.constantFrom(0, 0, 100, 500),
      byKey: fc.boolean(),
      big: fc.boolean(),
      budget: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      table: index,
      what: fc.constantFrom('sql' as const, 'stats' as const, 'syncedStats' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('churn' as const), ms: fc.integer({ min: 50, max: 3000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('restart' as const), churnMs: fc.oneof(fc.constant(0), fc.integer({ min: 50, max: 3000 })) }),
  },
);

/** The history of a seed: a first table, then `steps - 1` steps drawn from the seed (the same seed, the same steps). */
export function generateHistory(seed: number, steps: number): History {
  const first = fc.record({
    kind: fc.constant('addTable' as const),
    table: fc.constantFrom<TableKind>('plain', 'action', 'webhook'),
    rows: fc.integer({ min: 0, max: 3000 }),
  });
  const arbitrary = fc.tuple(first, fc.array(stepArbitrary, { minLength: steps - 1, maxLength: steps - 1 }));
  const [head, rest] = fc.sample(arbitrary, { seed, numRuns: 1 })[0]!;
  return { seed, steps: [head, ...rest] };
}

/** A step as one line of a report. */
export function describeStep(step: Step): string {
  const { kind, ...rest } = step;
  return `${kind} ${JSON.stringify(rest)}`;
}

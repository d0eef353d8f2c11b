import type { Batch } from '../plan/batch.js';
import { RULES_PER_QUERY, packKeyQueries } from './key-queries.js';
import type { KeyLookups, Planned } from './key-lookups.js';
import type { KeyPresence } from './table-keys.js';

export interface ExistingOptions {
  lookups: KeyLookups;
  /** Keys the input holds in all, when a check pass counted them (a stream: unknown). */
  keyCount?: number;
  /** Told the plan once it is chosen (for --verbose and the summary). */
  onPlan?(plan: Planned<KeyPresence>['plan']): void;
}

/** At most this many keys wait for one lookup (about 20 full batches). */
const MAX_WINDOW_KEYS = 10_000;

const keysOf = (batch: Batch): string[] => batch.items.flatMap((item) => (item.key === undefined ? [] : [item.key]));

/**
 * --skip-existing: marks in each batch the records whose keys the table already holds
 * (`batch.existing`). Batches are held until their keys fill one filter query, then looked up
 * together; the plan (queries, a full read, the mirror) is chosen at the first window.
 */
export async function* markExisting(batches: AsyncIterable<Batch>, options: ExistingOptions): AsyncGenerator<Batch> {
  let planned: Planned<KeyPresence> | undefined;
  let windowKeys = 0;
  let window: Batch[] = [];
  let held = 0;
  const release = async function* (): AsyncGenerator<Batch> {
    const keys = window.flatMap(keysOf);
    if (!planned) {
      planned = await options.lookups.existing(keys, Math.max(options.keyCount ?? 0, keys.length));
      options.onPlan?.(planned.plan);
    }
    const present = keys.length > 0 ? await planned.lookup.present(keys) : new Set<string>();
    for (const batch of window) {
      const existing = new Set(batch.items.filter((item) => item.key !== undefined && present.has(item.key)).map((item) => item.record));
      yield existing.size > 0 ? { ...batch, existing } : batch;
    }
    window = [];
    held = 0;
  };
  for await (const batch of batches) {
    // an uncertain batch of an earlier run is settled by its own lookup
    if (batch.unsettled) {
      yield batch;
      continue;
    }
    window.push(batch);
    held += batch.items.length;
    windowKeys ||= keysPerQuery(options.lookups, keysOf(batch));
    if (held >= windowKeys || (planned && planned.plan.kind !== 'queries')) yield* release();
  }
  if (window.length > 0) yield* release();
}

/** How many keys like these one filter query holds (capped: a window holds its batches in memory). */
function keysPerQuery(lookups: KeyLookups, sample: readonly string[]): number {
  if (sample.length === 0) return 1;
  const rules = packKeyQueries(lookups.column, sample).reduce((sum, query) => sum + countRules(query.rules), 0);
  return Math.min(MAX_WINDOW_KEYS, Math.max(1, Math.floor((sample.length / rules) * RULES_PER_QUERY)));
}

function countRules(entries: ReadonlyArray<{ rules?: unknown[] } | object>): number {
  return entries.reduce<number>(
    (sum, entry) => sum + ('rules' in entry && Array.isArray(entry.rules) ? countRules(entry.rules as object[]) : 1),
    0,
  );
}

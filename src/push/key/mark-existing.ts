import type { Batch } from '../plan/batch.js';
import { RULES_PER_QUERY, packKeyQueries, type KeyLookups, type Planned, type KeyPresence } from './key-lookups.js';

export interface ExistingOptions {
  lookups: KeyLookups;
  /** Keys the input holds in all, when a validating read counted them (a stream: unknown). */
  keyCount?: number;
  /** Told the plan once it is chosen (for --verbose and the summary). */
  onPlan?(plan: Planned<KeyPresence>['plan']): void;
}

/** About this many keys wait for one lookup (20 full batches): whole queries' worth. */
const MAX_WINDOW_KEYS = 10_000;

const keysOf = (batch: Batch): string[] => batch.items.flatMap((item) => (item.key === undefined ? [] : [item.key]));

/**
 * --skip-existing: marks in each batch the records whose keys the table already holds
 * (`batch.existing`). Batches are held until their keys fill one filter query, then looked up
 * together. The plan (queries, a full read, the mirror) is chosen at the first window; when queries
 * could be cheapest, the first window is looked up with them, and the share of its keys found decides
 * the plan for the rest (a page per 100 keys found is most of the cost when most are there). Once the
 * plan is queries, as many windows as lookups in flight (KeyLookups.inFlight) are looked up at once, their
 * batches held (32 MB of bodies at most) and passed on in input order.
 */
export async function* markExisting(batches: AsyncIterable<Batch>, options: ExistingOptions): AsyncGenerator<Batch> {
  const plans = new ExistingPlans(options);
  let windowKeys = 0;
  let window: Batch[] = [];
  let held = 0;
  /** windows whose lookup is under way, oldest first: their batches go on in input order */
  const looking: Array<{ batches: Batch[]; keys: number; present: Promise<Set<string>> }> = [];
  const start = async (): Promise<void> => {
    const keys = window.flatMap(keysOf);
    const present = keys.length > 0 ? (await plans.next(keys)).present(keys) : Promise.resolve(new Set<string>());
    // told when its window goes on
    present.catch(() => undefined);
    looking.push({ batches: window, keys: keys.length, present });
    window = [];
    held = 0;
  };
  const release = async function* (): AsyncGenerator<Batch> {
    const { batches: done, keys, present: lookup } = looking.shift()!;
    const present = await lookup;
    plans.saw(keys, present.size);
    for (const batch of done) {
      const existing = new Set(batch.items.filter((item) => item.key !== undefined && present.has(item.key)).map((item) => item.record));
      yield existing.size > 0 ? { ...batch, existing } : batch;
    }
  };
  for await (const batch of batches) {
    // an uncertain batch of an earlier run is reconciled by its own lookup
    if (batch.unreconciled) {
      yield batch;
      continue;
    }
    window.push(batch);
    held += batch.items.length;
    windowKeys ||= keysPerQuery(options.lookups, keysOf(batch));
    if (held >= windowKeys || plans.fromMemory) {
      await start();
      // once the plan is queries, the next windows are looked up while this one's lookup is under way
      while (
        looking.length > 0 &&
        !(plans.overlapping && looking.length < options.lookups.inFlight && heldBytes(looking) < MAX_HELD_BYTES)
      ) {
        yield* release();
      }
    }
  }
  if (window.length > 0) await start();
  while (looking.length > 0) yield* release();
}

/** Bytes of the request bodies the windows under way hold: at most this much (beside one window) waits for lookups. */
const MAX_HELD_BYTES = 32 * 1024 * 1024;

function heldBytes(windows: ReadonlyArray<{ batches: Batch[] }>): number {
  return windows.reduce((sum, window) => sum + window.batches.reduce((bytes, batch) => bytes + batch.bytes, 0), 0);
}

/** The plan of each window: a probe with queries first when they could win, then the plan the share found says. */
class ExistingPlans {
  private planned?: Planned<KeyPresence>;
  private probing = false;
  private looked = 0;
  private found = 0;

  constructor(private readonly options: ExistingOptions) {}

  /** The plan answers from memory once it has read the table (or the mirror): no need to hold batches. */
  get fromMemory(): boolean {
    return this.planned !== undefined && this.planned.plan.kind !== 'queries';
  }

  /** The plan is fixed on queries: windows may be looked up while earlier ones are (no probe waits for their share). */
  get overlapping(): boolean {
    return this.planned?.plan.kind === 'queries' && !this.probing;
  }

  saw(keys: number, found: number): void {
    this.looked += keys;
    this.found += found;
  }

  async next(keys: readonly string[]): Promise<KeyPresence> {
    const { lookups, onPlan } = this.options;
    const total = Math.max(this.options.keyCount ?? 0, keys.length);
    if (!this.planned) {
      const hopeful = total > keys.length ? await lookups.existing(keys, total, 0) : undefined;
      this.probing = hopeful?.plan.kind === 'queries';
      this.planned = this.probing && hopeful ? hopeful : await lookups.existing(keys, total);
      if (!this.probing) onPlan?.(this.planned.plan);
    } else if (this.probing) {
      this.probing = false;
      this.planned = await lookups.existing(keys, Math.max(keys.length, total - this.looked), this.found / this.looked);
      onPlan?.(this.planned.plan);
    }
    return this.planned.lookup;
  }
}

/** How many keys like these one filter query holds (capped: a window holds its batches in memory). */
function keysPerQuery(lookups: KeyLookups, sample: readonly string[]): number {
  if (sample.length === 0) return 1;
  const rules = packKeyQueries(lookups.column, sample).reduce((sum, query) => sum + countRules(query.rules), 0);
  const perQuery = Math.max(1, Math.floor((sample.length / rules) * RULES_PER_QUERY));
  // whole queries: a window of 500 keys of 97 a query would leave a query nearly empty each time
  return perQuery >= MAX_WINDOW_KEYS ? MAX_WINDOW_KEYS : perQuery * Math.floor(MAX_WINDOW_KEYS / perQuery);
}

function countRules(entries: ReadonlyArray<{ rules?: unknown[] } | object>): number {
  return entries.reduce<number>(
    (sum, entry) => sum + ('rules' in entry && Array.isArray(entry.rules) ? countRules(entry.rules as object[]) : 1),
    0,
  );
}

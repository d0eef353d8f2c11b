import type { ApiClient } from '../../http/client.js';
import { resolveTable } from '../../http/resolve-table.js';
import type { Table } from '../../spec/index.js';
import type { KeyColumn } from './key-column.js';
import { chooseLookupPlan, type LookupPlan } from './lookup-plan.js';
import { MirrorSnapshot, type MirrorSource } from './mirror-snapshot.js';
import { KeySnapshot, QueryLookup, TableRead, type KeyPresence, type KeyRows } from './table-keys.js';

/** A chosen plan and what carries it out. */
export interface Planned<T> {
  plan: LookupPlan;
  lookup: T;
}

/**
 * Every key lookup of a keyed push (--skip-existing, settling uncertain batches, --wait settled): each
 * question answered by the plan with the fewest row requests for it, all requests counted.
 */
export class KeyLookups {
  private readonly used: Array<{ readonly requests: number }> = [];

  constructor(
    readonly client: ApiClient,
    readonly table: Table,
    readonly column: KeyColumn,
    private readonly mirror?: MirrorSource,
  ) {}

  /** Row requests of every lookup so far (the local mirror's sync included). */
  get requests(): number {
    return this.used.reduce((sum, lookup) => sum + lookup.requests, 0);
  }

  /** The table's rowCount now (one metadata request). */
  async rowCount(): Promise<number> {
    return (await resolveTable(this.client, this.table.id)).rowCount;
  }

  /**
   * --skip-existing: which keys the table already holds; `sample` stands for `keyCount` keys in all, of
   * which the share `found` is expected in the table (default: every one).
   */
  async existing(sample: readonly string[], keyCount: number, found?: number): Promise<Planned<KeyPresence>> {
    const rowCount = await this.rowCount();
    const mirrorRequests = await this.mirror?.syncCost(this.table, rowCount);
    const plan = chooseLookupPlan({
      column: this.column,
      keys: sample,
      keyCount,
      rowCount,
      mirrorRequests,
      ...(found !== undefined ? { found } : {}),
    });
    return { plan, lookup: this.track(this.presence(plan)) };
  }

  /** Settling uncertain batches: which of their keys the table holds now (never from an earlier read). */
  async settle(keys: readonly string[]): Promise<Planned<KeyPresence>> {
    const plan = chooseLookupPlan({ column: this.column, keys, keyCount: keys.length, rowCount: await this.rowCount() });
    return { plan, lookup: this.track(this.presence(plan)) };
  }

  /** --wait settled: the rows holding `keys`; `recent` when every one was sent by this run, which began at `since`. */
  async rows(keys: readonly string[], recent?: { since: number; rowsBefore: number }): Promise<Planned<KeyRows>> {
    const rowCount = await this.rowCount();
    const recentRows = recent ? Math.max(keys.length, rowCount - recent.rowsBefore) : undefined;
    const plan = chooseLookupPlan({ column: this.column, keys, keyCount: keys.length, rowCount, recentRows });
    const target = { client: this.client, tableId: this.table.id, column: this.column };
    const lookup =
      plan.kind === 'queries' ? new QueryLookup(target) : new TableRead(target, plan.kind === 'recent' ? recent?.since : undefined);
    return { plan, lookup: this.track(lookup) };
  }

  private presence(plan: LookupPlan): KeyPresence {
    const target = { client: this.client, tableId: this.table.id, column: this.column };
    if (plan.kind === 'mirror' && this.mirror) return new MirrorSnapshot(this.mirror, this.table, this.column);
    return plan.kind === 'queries' ? new QueryLookup(target) : new KeySnapshot(target);
  }

  private track<T extends { readonly requests: number }>(lookup: T): T {
    this.used.push(lookup);
    return lookup;
  }
}

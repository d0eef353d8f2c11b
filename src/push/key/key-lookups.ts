import type { ApiClient } from '../../http/client.js';
import { resolveTable } from '../../http/resolve-table.js';
import type { Table } from '../../service/index.js';
import type { KeyColumn } from './record-key.js';
import { chooseLookupPlan, type LookupPlan } from './lookup-plan.js';
import { MirrorSnapshot, type MirrorSource } from './mirror-snapshot.js';
import { KeySnapshot, QueryLookup, TableRead, type KeyPresence, type KeyRows } from './table-keys.js';

/** A chosen plan and what carries it out. */
export interface Planned<T> {
  plan: LookupPlan;
  lookup: T;
}

/** What a keyed push looked keys up for. */
export type LookupUse = 'existing' | 'check' | 'reconcile' | 'wait';

/** Row requests of the key lookups, by what they were for. */
export type LookupRequests = Record<LookupUse, number>;

/**
 * Every key lookup of a keyed push (--skip-existing, settling uncertain batches, --wait settled): each
 * question answered by the plan with the fewest row requests for it, all requests counted.
 */
export class KeyLookups {
  private readonly used: Array<{ use: LookupUse; lookup: { readonly requests: number } }> = [];

  constructor(
    readonly client: ApiClient,
    readonly table: Table,
    readonly column: KeyColumn,
    private readonly mirror?: MirrorSource,
  ) {}

  /** Row requests of every lookup so far, by use (the local mirror's sync included). */
  get requests(): LookupRequests {
    const requests: LookupRequests = { existing: 0, check: 0, reconcile: 0, wait: 0 };
    for (const { use, lookup } of this.used) requests[use] += lookup.requests;
    return requests;
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
    return { plan, lookup: this.track('existing', this.presence(plan)) };
  }

  /**
   * Settling uncertain batches, or checking that the keys of batches taken in show (`check`): the rows
   * that hold some of the keys now (never from an earlier read, so never the mirror). `rowCount`: the
   * table's, when just read.
   */
  async reconcile(keys: readonly string[], use: 'reconcile' | 'check' = 'reconcile', rowCount?: number): Promise<Planned<KeyRows>> {
    const rows = rowCount ?? (await this.rowCount());
    const plan = chooseLookupPlan({ column: this.column, keys, keyCount: keys.length, rowCount: rows });
    const target = { client: this.client, tableId: this.table.id, column: this.column };
    return { plan, lookup: this.track(use, plan.kind === 'queries' ? new QueryLookup(target) : new TableRead(target)) };
  }

  /** The createdAt (ms, the service's clock) of the table's newest row, undefined when it has none (one row request). */
  async newestCreatedAt(use: 'reconcile' | 'check' = 'reconcile'): Promise<number | undefined> {
    this.track(use, { requests: 1 });
    const page = await this.client.rowsPage(this.table.id, { limit: 1 });
    const newest = page.rows[0];
    return newest === undefined ? undefined : Date.parse(newest.createdAt);
  }

  /**
   * --wait settled: the rows holding `keys`; `recent` when every one was sent by this run: no row of it
   * was created before `since` (the service's clock), and the table had `rowsBefore` rows before it.
   */
  async rows(keys: readonly string[], recent?: { since: number; rowsBefore: number }): Promise<Planned<KeyRows>> {
    const rowCount = await this.rowCount();
    const recentRows = recent ? Math.max(keys.length, rowCount - recent.rowsBefore) : undefined;
    const plan = chooseLookupPlan({ column: this.column, keys, keyCount: keys.length, rowCount, recentRows });
    const target = { client: this.client, tableId: this.table.id, column: this.column };
    const lookup =
      plan.kind === 'queries' ? new QueryLookup(target) : new TableRead(target, plan.kind === 'recent' ? recent?.since : undefined);
    return { plan, lookup: this.track('wait', lookup) };
  }

  private presence(plan: LookupPlan): KeyPresence {
    const target = { client: this.client, tableId: this.table.id, column: this.column };
    if (plan.kind === 'mirror' && this.mirror) return new MirrorSnapshot(this.mirror, this.table, this.column);
    return plan.kind === 'queries' ? new QueryLookup(target) : new KeySnapshot(target);
  }

  private track<T extends { readonly requests: number }>(use: LookupUse, lookup: T): T {
    this.used.push({ use, lookup });
    return lookup;
  }
}

import { type ApiClient, resolveTable, paginate, type RateWindow } from '../../http/index.js';
import {
  type Table,
  PAGE_LIMIT_MAX,
  type Row,
  type RowsPage,
  ANY_OF_MAX_ITEMS,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  type FilterGroup,
  type FilterRule,
} from '../../service/index.js';
import { type KeyColumn, foldKey } from './record-key.js';

// Looking keys up in the table: KeyLookups answers each question of a keyed push (--skip-existing,
// reconciling, --wait settled) with the plan of fewest row requests (chooseLookupPlan): filter queries
// packed to the service's limits, a read of the whole table, the local mirror, or the newest rows.

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
 * Every key lookup of a keyed push (--skip-existing, reconciling uncertain batches, --wait settled): each
 * question answered by the plan with the fewest row requests for it, all requests counted.
 */
export class KeyLookups {
  private readonly used: Array<{ use: LookupUse; lookup: { readonly requests: number } }> = [];
  /** Every filter query's pages go through it: about rate × round trip of them in flight. */
  private readonly flight: Flight;

  constructor(
    readonly client: ApiClient,
    readonly table: Table,
    readonly column: KeyColumn,
    private readonly mirror?: MirrorSource,
  ) {
    this.flight = new Flight(() => this.inFlight);
  }

  /** Row requests of every lookup so far, by use (the local mirror's sync included). */
  get requests(): LookupRequests {
    const requests: LookupRequests = { existing: 0, check: 0, reconcile: 0, wait: 0 };
    for (const { use, lookup } of this.used) requests[use] += lookup.requests;
    return requests;
  }

  /** The row requests the lookups keep in flight now (rate × round trip: lookupsInFlight). */
  get inFlight(): number {
    return lookupsInFlight(this.client.roundTripMs(), this.client.timings.windows.rows);
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
   * Reconciling uncertain batches, or checking that the keys of batches taken in show (`check`): the rows
   * that hold some of the keys now (never from an earlier read, so never the mirror). `rowCount`: the
   * table's, when just read.
   */
  async reconcile(keys: readonly string[], use: 'reconcile' | 'check' = 'reconcile', rowCount?: number): Promise<Planned<KeyRows>> {
    const rows = rowCount ?? (await this.rowCount());
    const plan = chooseLookupPlan({ column: this.column, keys, keyCount: keys.length, rowCount: rows });
    const target = this.target();
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
    const target = this.target();
    const lookup =
      plan.kind === 'queries' ? new QueryLookup(target) : new TableRead(target, plan.kind === 'recent' ? recent?.since : undefined);
    return { plan, lookup: this.track('wait', lookup) };
  }

  private presence(plan: LookupPlan): KeyPresence {
    const target = this.target();
    if (plan.kind === 'mirror' && this.mirror) return new MirrorSnapshot(this.mirror, this.table, this.column);
    return plan.kind === 'queries' ? new QueryLookup(target) : new KeySnapshot(target);
  }

  private target(): LookupTarget {
    return { client: this.client, tableId: this.table.id, column: this.column, flight: this.flight };
  }

  private track<T extends { readonly requests: number }>(use: LookupUse, lookup: T): T {
    this.used.push({ use, lookup });
    return lookup;
  }
}

/** Which of some keys the table holds: filter queries, a read of the whole table, or the local mirror. */
export interface KeyPresence {
  /** The keys (folded) among `keys` that some row's key cell holds. */
  present(keys: readonly string[]): Promise<Set<string>>;
  /** Row requests made so far. */
  readonly requests: number;
}

/** The rows that hold some keys (for --wait settled, which needs the rows themselves). */
export interface KeyRows {
  /**
   * The rows whose key cell holds one of `keys` (folded), by folded key. With `until`, told each part
   * read in order (a query's rows, a page's), no further part is started once it says so.
   */
  find(keys: readonly string[], until?: (part: ReadonlyMap<string, Row>) => boolean): Promise<Map<string, Row>>;
  readonly requests: number;
}

export interface LookupTarget {
  client: ApiClient;
  tableId: string;
  column: KeyColumn;
  /** the requests in flight of a push's filter queries (none: one at a time) */
  flight?: Flight;
}

/** The client's connections to the service (src/http/transport.ts): more in flight would only queue for one. */
const CONNECTIONS = 8;

/**
 * Row requests the key lookups keep in flight (pure): the row-read limit's rate × the round trip (the
 * bandwidth-delay product) with a quarter more for jitter, and one more so that an answer being read
 * never leaves the way empty; at most the client's connections and the limit. 2 before any round trip
 * is known. The limiter, not this count, keeps the limit: more in flight never reads faster than it allows.
 */
export function lookupsInFlight(roundTripMs: number | undefined, window: RateWindow): number {
  if (roundTripMs === undefined) return Math.min(2, window.requests);
  const needed = Math.ceil(((window.requests * roundTripMs) / window.perMs) * 1.25) + 1;
  return Math.max(1, Math.min(needed, CONNECTIONS, window.requests));
}

/** At most `limit()` requests at once; the others wait their turn, first come first served. */
export class Flight {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  async run<T>(request: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.active < this.limit()) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await request();
    } finally {
      this.active -= 1;
      while (this.waiting.length > 0 && this.active < this.limit()) {
        this.active += 1;
        this.waiting.shift()!();
      }
    }
  }
}

/** A part of a lookup that was not started: `until` had said enough. */
const NOT_STARTED = Symbol('not started');

/** The folded keys a row's key cell holds: none when it is empty or cut (a cut cell proves nothing). */
export function keysOfRow(column: KeyColumn, row: Row): string[] {
  const cell = row.cells[column.field.id];
  if (!cell || cell.isTruncated === true || cell.value === null || cell.value === undefined) return [];
  const value = cell.value;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return [];
  const text = String(value);
  const keys = [foldKey(column, text)];
  // a select cell holds the option's value; a key may be its label
  const label = column.field.options?.find((option) => option.value === text)?.label;
  if (label !== undefined) keys.push(foldKey(column, label));
  return keys;
}

/** Keys looked up with filter queries packed to the service's limits (POST rows/query), every page followed. */
export class QueryLookup implements KeyPresence, KeyRows {
  requests = 0;

  constructor(private readonly target: LookupTarget) {}

  async present(keys: readonly string[]): Promise<Set<string>> {
    return new Set((await this.find(keys)).keys());
  }

  /**
   * The queries overlap (as many in flight as the target's flight allows, each one's pages in turn);
   * their rows are taken in the queries' order, so the answer is the same as one query after another.
   */
  async find(keys: readonly string[], until?: (part: ReadonlyMap<string, Row>) => boolean): Promise<Map<string, Row>> {
    const { column } = this.target;
    const wanted = new Set(keys);
    const stop = { now: false };
    const parts = packKeyQueries(column, [...wanted]).map((filters) => this.query(filters, wanted, stop));
    const found = new Map<string, Row>();
    try {
      for (const part of parts) {
        const rows = await part;
        for (const [key, row] of rows) if (!found.has(key)) found.set(key, row);
        if (!stop.now && until?.(rows)) stop.now = true;
      }
    } finally {
      // a failed query stops the others from starting; those in flight end before the error is told
      stop.now = true;
      await Promise.allSettled(parts);
    }
    return found;
  }

  /** One query's rows, every page followed (none started once `stop.now`). */
  private async query(filters: FilterGroup, wanted: ReadonlySet<string>, stop: { now: boolean }): Promise<Map<string, Row>> {
    const { client, tableId, column, flight } = this.target;
    const rows = new Map<string, Row>();
    const pages = paginate((cursor) => {
      const send = (): Promise<RowsPage> => {
        if (stop.now) return Promise.reject(NOT_STARTED);
        this.requests += 1;
        return client.queryPage(tableId, { limit: PAGE_LIMIT_MAX, filters, ...(cursor ? { cursor } : {}) });
      };
      return flight ? flight.run(send) : send();
    });
    try {
      // containsAnyOf matches parts of values: only an equal key counts
      for await (const { page } of pages) for (const row of page.rows) collect(rows, wanted, column, row);
    } catch (error) {
      if (error !== NOT_STARTED) throw error;
    }
    return rows;
  }
}

/**
 * The whole table read, newest first: cheaper than lookups when the table has fewer rows than the
 * keys' queries would cost. With `since`, reading stops below that creation time (the rows a push
 * added are the newest).
 */
export class TableRead implements KeyRows {
  requests = 0;

  constructor(
    private readonly target: LookupTarget,
    private readonly since?: number,
  ) {}

  async find(keys: readonly string[], until?: (part: ReadonlyMap<string, Row>) => boolean): Promise<Map<string, Row>> {
    const wanted = new Set(keys);
    const found = new Map<string, Row>();
    let part = new Map<string, Row>();
    const visit = (row: Row): void => collect(part, wanted, this.target.column, row);
    await this.each(visit, () => {
      for (const [key, row] of part) if (!found.has(key)) found.set(key, row);
      const enough = until?.(part) ?? false;
      part = new Map();
      return enough;
    });
    return found;
  }

  /** Every row (or every row created since `since`), newest first; `enough`, asked after each page, ends the read. */
  async each(visit: (row: Row) => void, enough?: () => boolean): Promise<void> {
    const { client, tableId } = this.target;
    const pages = paginate(
      (cursor, onBody) => {
        this.requests += 1;
        return client.rowsPage(tableId, { limit: PAGE_LIMIT_MAX, ...(cursor ? { cursor } : {}) }, onBody);
      },
      { ahead: this.since === undefined ? 1 : 0 },
    );
    for await (const { page } of pages) {
      page.rows.forEach(visit);
      if (enough?.() === true) return;
      const oldest = page.rows.at(-1);
      if (this.since !== undefined && oldest && Date.parse(oldest.createdAt) < this.since) return;
    }
  }
}

/** Keys read once from somewhere whole (the table, the mirror), then every question answered from them. */
abstract class KeySetPresence implements KeyPresence {
  private keys?: Promise<Set<string>>;

  abstract readonly requests: number;

  async present(keys: readonly string[]): Promise<Set<string>> {
    const all = await (this.keys ??= this.load());
    return new Set(keys.filter((key) => all.has(key)));
  }

  /** Every key (folded) the source holds. */
  protected abstract load(): Promise<Set<string>>;
}

/** The table's keys read once (a full read). */
export class KeySnapshot extends KeySetPresence {
  private readonly read: TableRead;

  constructor(private readonly target: LookupTarget) {
    super();
    this.read = new TableRead(target);
  }

  get requests(): number {
    return this.read.requests;
  }

  protected async load(): Promise<Set<string>> {
    const all = new Set<string>();
    await this.read.each((row) => keysOfRow(this.target.column, row).forEach((key) => all.add(key)));
    return all;
  }
}

function collect(found: Map<string, Row>, wanted: ReadonlySet<string>, column: KeyColumn, row: Row): void {
  for (const key of keysOfRow(column, row)) if (wanted.has(key) && !found.has(key)) found.set(key, row);
}

/**
 * The local mirror (`tds sync`'s database, --db) as a source of a table's keys. It lives in another
 * part of tds; the push command hands it in.
 */
export interface MirrorSource {
  /** Row requests an incremental sync of the table would take; undefined when the table is not in the mirror. */
  syncCost(table: Table, rowCount: number): Promise<number | undefined>;
  /** Syncs the table incrementally, then gives the text of every cell of the column the service did not cut. */
  keyTexts(table: Table, fieldId: string): Promise<Iterable<string>>;
  /** Row requests its syncs made. */
  readonly requests: number;
}

/** The keys of the mirror's copy of the table, brought up to date once, then every question answered from it. */
export class MirrorSnapshot extends KeySetPresence {
  constructor(
    private readonly source: MirrorSource,
    private readonly table: Table,
    private readonly column: KeyColumn,
  ) {
    super();
  }

  get requests(): number {
    return this.source.requests;
  }

  protected async load(): Promise<Set<string>> {
    const all = new Set<string>();
    const options = this.column.field.options ?? [];
    for (const text of await this.source.keyTexts(this.table, this.column.field.id)) {
      all.add(foldKey(this.column, text));
      // the mirror keeps a select's label; a key may be the option's value
      for (const option of options) if (option.label === text) all.add(foldKey(this.column, option.value));
    }
    return all;
  }
}

/** How keys are found in the table, and what that costs in row requests. */
export interface LookupPlan {
  /** `recent`: the rows created since the push began, newest first (only rows this run added are looked for) */
  kind: 'queries' | 'full-read' | 'mirror' | 'recent';
  /** Row requests it should take (the matches' pages counted at their most). */
  requests: number;
  /** For --dry-run and --verbose. */
  text: string;
}

export interface PlanInput {
  column: KeyColumn;
  /** Keys to look up (folded), or a sample of them: `keyCount` is how many there are in all. */
  keys: readonly string[];
  keyCount: number;
  /** The table's rowCount. */
  rowCount: number;
  /** Row requests an incremental sync of the local mirror would take (--db with the table in it). */
  mirrorRequests?: number;
  /** Rows created since the push began, when every key looked for was sent by this run. */
  recentRows?: number;
  /** The share of keys expected to be found (their rows come back in pages of 100); default 1, every one. */
  found?: number;
}

const n = (value: number): string => value.toLocaleString('en-US');
const pages = (rows: number): number => Math.max(1, Math.ceil(rows / PAGE_LIMIT_MAX));
const requests = (count: number): string => `${n(count)} row ${count === 1 ? 'request' : 'requests'}`;

/**
 * The plan with the fewest row requests: filter queries (the keys packed to the limits of
 * docs/service-api.md 4.5; a query's matches come back 100 a page), a read of the whole table (rowCount / 100
 * pages), the local mirror synced first, or the newest rows down to the push's start.
 */
export function chooseLookupPlan(input: PlanInput): LookupPlan {
  const { column, keyCount, rowCount } = input;
  const sampled = packKeyQueries(column, input.keys).length;
  const queries = input.keys.length === 0 ? 0 : Math.ceil((sampled * keyCount) / input.keys.length);
  const found = input.found ?? 1;
  // each query is one request, and one more per further 100 rows it matches
  const matches = Math.min(keyCount, rowCount) * found;
  const queryRequests = queries === 0 ? 0 : queries * Math.max(1, Math.ceil(matches / queries / PAGE_LIMIT_MAX));
  const operator = column.operator === 'in' ? '`in` lists' : column.operator === 'any' ? 'containsAnyOf lists' : '`=` rules';
  const keys = `${n(keyCount)} ${keyCount === 1 ? 'key' : 'keys'}`;
  const plans: LookupPlan[] = [
    {
      kind: 'queries',
      requests: queryRequests,
      text: `${keys} looked up in ${n(queries)} filter ${queries === 1 ? 'query' : 'queries'} (${operator} on "${column.field.label}"), ${found === 1 ? 'up to' : 'about'} ${requests(queryRequests)}`,
    },
    {
      kind: 'full-read',
      requests: pages(rowCount),
      text: `the table's ${n(rowCount)} ${rowCount === 1 ? 'row' : 'rows'} read once (${requests(pages(rowCount))}), ${keys} checked locally`,
    },
  ];
  if (input.mirrorRequests !== undefined) {
    plans.push({
      kind: 'mirror',
      requests: input.mirrorRequests,
      text: `the local mirror synced first (about ${requests(input.mirrorRequests)}), ${keys} checked in it`,
    });
  }
  if (input.recentRows !== undefined) {
    plans.push({
      kind: 'recent',
      requests: pages(input.recentRows),
      text: `the ${n(input.recentRows)} ${input.recentRows === 1 ? 'row' : 'rows'} created since the push began read newest first (${requests(pages(input.recentRows))})`,
    });
  }
  return plans.reduce((best, plan) => (plan.requests < best.requests ? plan : best));
}

/**
 * Keys packed into as few filter queries as the service's limits allow (docs/service-api.md 4.5): each
 * rule takes as many keys as its operator does (an `in` list up to 1,000 characters of JSON text, 20
 * for containsAnyOf, one for `=`); each query takes 97 rules, the most a group of 25 entries with
 * three nested groups of 25 can hold within 100 entries in all.
 */
export function packKeyQueries(column: KeyColumn, keys: readonly string[]): FilterGroup[] {
  const rules = packRules(column, keys);
  const queries: FilterGroup[] = [];
  for (let start = 0; start < rules.length; start += RULES_PER_QUERY) queries.push(orGroup(rules.slice(start, start + RULES_PER_QUERY)));
  return queries;
}

/** 22 rules beside 3 groups of 25 in the top group: 25 entries there, 100 in all. */
const NESTED_GROUPS = 3;
export const RULES_PER_QUERY = FILTER_MAX_ENTRIES_TOTAL - NESTED_GROUPS;

function orGroup(rules: FilterRule[]): FilterGroup {
  if (rules.length <= FILTER_MAX_ENTRIES_PER_GROUP) return { combinator: 'or', rules };
  const direct = FILTER_MAX_ENTRIES_PER_GROUP - NESTED_GROUPS;
  const top: Array<FilterRule | FilterGroup> = rules.slice(0, direct);
  for (let start = direct; start < rules.length; start += FILTER_MAX_ENTRIES_PER_GROUP) {
    top.push({ combinator: 'or', rules: rules.slice(start, start + FILTER_MAX_ENTRIES_PER_GROUP) });
  }
  return { combinator: 'or', rules: top };
}

function packRules(column: KeyColumn, keys: readonly string[]): FilterRule[] {
  const fieldId = column.field.id;
  if (column.operator === 'eq') {
    return keys.map((key) => ({ fieldId, operator: '=', value: column.field.type === 'number' ? Number(key) : key }));
  }
  const operator = column.operator === 'in' ? 'in' : 'containsAnyOf';
  const rules: FilterRule[] = [];
  let list: string[] = [];
  let chars = 2;
  for (const key of keys) {
    // a key whose JSON text (escapes and all) would not fit in a list on its own: an `=` rule of its own
    if (JSON.stringify(key).length + 2 > FILTER_VALUE_MAX_CHARS) {
      rules.push({ fieldId, operator: '=', value: key });
      continue;
    }
    const added = JSON.stringify(key).length + (list.length > 0 ? 1 : 0);
    const full = chars + added > FILTER_VALUE_MAX_CHARS || (operator === 'containsAnyOf' && list.length >= ANY_OF_MAX_ITEMS);
    if (full && list.length > 0) {
      rules.push({ fieldId, operator, value: list });
      list = [];
      chars = 2;
    }
    list.push(key);
    chars += JSON.stringify(key).length + (list.length > 1 ? 1 : 0);
  }
  if (list.length > 0) rules.push({ fieldId, operator, value: list });
  return rules;
}

import type { ApiClient } from '../../http/client.js';
import { paginate, rowsOf } from '../../http/paginate.js';
import { PAGE_LIMIT_MAX, type Row } from '../../service/index.js';
import { foldKey, type KeyColumn } from './record-key.js';
import { packKeyQueries } from './key-queries.js';

/** Which of some keys the table holds: filter queries, a read of the whole table, or the local mirror. */
export interface KeyPresence {
  /** The keys (folded) among `keys` that some row's key cell holds. */
  present(keys: readonly string[]): Promise<Set<string>>;
  /** Row requests made so far. */
  readonly requests: number;
}

/** The rows that hold some keys (for --wait settled, which needs the rows themselves). */
export interface KeyRows {
  /** The rows whose key cell holds one of `keys` (folded), by folded key. */
  find(keys: readonly string[]): Promise<Map<string, Row>>;
  readonly requests: number;
}

export interface LookupTarget {
  client: ApiClient;
  tableId: string;
  column: KeyColumn;
}

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

  async find(keys: readonly string[]): Promise<Map<string, Row>> {
    const { client, tableId, column } = this.target;
    const wanted = new Set(keys);
    const found = new Map<string, Row>();
    for (const filters of packKeyQueries(column, [...wanted])) {
      const pages = paginate((cursor) => {
        this.requests += 1;
        return client.queryPage(tableId, { limit: PAGE_LIMIT_MAX, filters, ...(cursor ? { cursor } : {}) });
      });
      // containsAnyOf matches parts of values: only an equal key counts
      for await (const row of rowsOf(pages)) collect(found, wanted, column, row);
    }
    return found;
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

  async find(keys: readonly string[]): Promise<Map<string, Row>> {
    const wanted = new Set(keys);
    const found = new Map<string, Row>();
    await this.each((row) => collect(found, wanted, this.target.column, row));
    return found;
  }

  /** Every row (or every row created since `since`), newest first. */
  async each(visit: (row: Row) => void): Promise<void> {
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
      const oldest = page.rows.at(-1);
      if (this.since !== undefined && oldest && Date.parse(oldest.createdAt) < this.since) return;
    }
  }
}

/** Keys read once from somewhere whole (the table, the mirror), then every question answered from them. */
export abstract class KeySetPresence implements KeyPresence {
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

import type { Table } from '../../service/index.js';
import { foldKey, type KeyColumn } from './record-key.js';
import { KeySetPresence } from './table-keys.js';

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

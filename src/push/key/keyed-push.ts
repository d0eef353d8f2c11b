import { type ApiClient, resolveTable } from '../../http/index.js';
import type { Field, Table } from '../../service/index.js';
import { keyColumn, type KeyColumn, type KeyedOptions, type PushedKeys, type KeyMapping } from './record-key.js';
import { KeyLookups, type MirrorSource } from './key-lookups.js';

/** `--key FIELD[=COLUMN]` with `--table`, as the command gives it. */
export interface KeyJob {
  spec: KeyMapping;
  /** --table: ID or exact name */
  table: string;
  client: ApiClient;
  onDuplicate: 'skip' | 'error';
  skipExisting: boolean;
  /** --db: the local mirror, when it holds the table */
  mirror?: MirrorSource;
}

/** A keyed push once its table and key column are known. */
export interface KeyedPush {
  job: KeyJob;
  table: Table;
  fields: Field[];
  column: KeyColumn;
  lookups: KeyLookups;
}

/** The table (exit 4 when unknown) and its key column (exit 2 when it cannot hold a key). */
export async function prepareKeyed(job: KeyJob): Promise<KeyedPush> {
  const table = await resolveTable(job.client, job.table);
  const { fields } = await job.client.schema(table.id);
  const column = keyColumn(fields, job.spec.column);
  return { job, table, fields, column, lookups: new KeyLookups(job.client, table, column, job.mirror) };
}

/** How a read of the input takes each record's key. */
export function keyedOptions(keyed: KeyedPush, source: string, keys?: PushedKeys): KeyedOptions {
  return { spec: keyed.job.spec, column: keyed.column, onDuplicate: keyed.job.onDuplicate, source, ...(keys ? { keys } : {}) };
}

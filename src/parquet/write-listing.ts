import { rm, writeFile } from 'node:fs/promises';
import { openDatabase, quoteLiteral } from '../duckdb/index.js';
import { claimOutput, OutputWriteError } from '../output/index.js';
import { copyOut } from './copy-out.js';

// A listing (workspaces, tables, schema) as Parquet: a few hundred objects at most, written as NDJSON
// beside FILE, typed by DuckDB's JSON reader with the listing's own column types, and copied out (copy-out.ts).

/** A listing's column: the object's key, and its Parquet type. */
export interface ListingColumn {
  key: string;
  type: 'VARCHAR' | 'BIGINT' | 'BOOLEAN' | 'JSON';
}

export async function writeParquetListing(items: readonly object[], columns: readonly ListingColumn[], path: string): Promise<void> {
  const lock = await claimOutput(path, 'another tds command');
  const source = `${path}.tds-listing.ndjson`;
  try {
    const lines = items.map((item) => {
      const record = item as Record<string, unknown>;
      return `${JSON.stringify(Object.fromEntries(columns.map(({ key }) => [key, record[key] ?? null])))}\n`;
    });
    // created afresh (a file a crashed run left is removed; a link planted there is not followed)
    await rm(source, { force: true });
    await writeFile(source, lines.join(''), { flag: 'wx' }).catch((error: unknown) => {
      throw new OutputWriteError(source, error as Error);
    });
    const db = await openDatabase(':memory:', { readOnly: false, what: 'the listing', memoryLimit: '64MB', threads: 1 });
    try {
      const types = columns.map(({ key, type }) => `${quoteLiteral(key)}: ${quoteLiteral(type)}`).join(', ');
      const read = `read_json(${quoteLiteral(source)}, format = 'newline_delimited', columns = {${types}})`;
      await copyOut({ run: (sql) => db.connection.run(sql), query: `SELECT * FROM ${read}`, path });
    } finally {
      db.close();
    }
  } finally {
    await rm(source, { force: true });
    await lock.release();
  }
}

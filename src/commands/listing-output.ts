import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { ListingColumn } from '../parquet/write-listing.js';
import type { ExportFormat } from '../output/format.js';
import { writeListing, type ListingLayout } from '../output/table.js';

/** A listing's spec with the export formats, and the Parquet type of each of its fields. */
export interface ListingOutput<T> extends Omit<ListingLayout<T>, 'format'> {
  format: ExportFormat;
  parquetTypes: Record<string, ListingColumn['type']>;
}

/** Writes a listing like every format (see writeListing), or as Parquet to `-o FILE` (DuckDB, loaded only then). */
export async function writeListingAs<T extends object>(ctx: Context, items: T[], spec: ListingOutput<T>): Promise<void> {
  const { format, parquetTypes, ...rest } = spec;
  if (format !== 'parquet') return writeListing(ctx, items, { ...rest, format });
  if (!spec.output || spec.output === '-') {
    throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal', {
      hint: 'e.g. tds tables -o tables.parquet',
    });
  }
  const { writeParquetListing } = await import('../parquet/write-listing.js');
  const columns = spec.fields.map((key) => ({ key, type: parquetTypes[key] ?? 'VARCHAR' }));
  await writeParquetListing(items, columns, spec.output);
}

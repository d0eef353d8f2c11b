import { extname } from 'node:path';
import { UsageError } from '../core/options.js';

/** The formats of every command that prints data (listings, `default-format`). */
export const OUTPUT_FORMATS = ['table', 'csv', 'tsv', 'ndjson', 'json'] as const;
export type Format = (typeof OUTPUT_FORMATS)[number];
export type DataFormat = Exclude<Format, 'table'>;

/** Exports and listings also write Parquet: typed columns, to `-o FILE` only (a binary format). */
export const EXPORT_FORMATS = [...OUTPUT_FORMATS, 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The one table of file extensions: outputs (-o FILE) and push's input read it alike. */
const BY_EXTENSION: Record<string, DataFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
};

/** The data format a file's extension names (.csv, .tsv or .tab, .ndjson or .jsonl, .json), if any. */
export function formatFromPath(path: string): DataFormat | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

/** `--format` wins; else the extension of `-o FILE`; else the command's default. */
export function chooseFormat(options: { format?: Format; output?: string; fallback: Format }): Format {
  if (options.format) return options.format;
  if (options.output && options.output !== '-') {
    const fromPath = formatFromPath(options.output);
    if (fromPath) return fromPath;
    throw new UsageError(`cannot tell the format of "${options.output}" from its extension`, {
      hint: 'use an extension of .csv .tsv .tab .ndjson .jsonl .json, or give --format',
    });
  }
  return options.fallback;
}

/** chooseFormat for the commands that also write Parquet (rows, query and the listings), which know `.parquet`. */
export function chooseExportFormat(options: { format?: ExportFormat; output?: string; fallback: Format }): ExportFormat {
  const { format, output, fallback } = options;
  if (format === 'parquet' || (!format && output && extname(output).toLowerCase() === '.parquet')) return 'parquet';
  if (!format && output && output !== '-' && !formatFromPath(output)) {
    throw new UsageError(`cannot tell the format of "${output}" from its extension`, {
      hint: 'use an extension of .csv .tsv .tab .ndjson .jsonl .json .parquet, or give --format',
    });
  }
  return chooseFormat({ ...(format ? { format } : {}), ...(output ? { output } : {}), fallback });
}

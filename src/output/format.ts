import { extname } from 'node:path';
import { UsageError } from '../core/errors.js';

export const OUTPUT_FORMATS = ['table', 'csv', 'tsv', 'ndjson', 'json'] as const;
export type Format = (typeof OUTPUT_FORMATS)[number];
export type DataFormat = Exclude<Format, 'table'>;

const BY_EXTENSION: Record<string, DataFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
};

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
      hint: 'use an extension of .csv .tsv .ndjson .jsonl .json, or give --format',
    });
  }
  return options.fallback;
}

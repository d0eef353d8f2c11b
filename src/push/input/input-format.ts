import { extname } from 'node:path';
import { UsageError } from '../../core/errors.js';

export const INPUT_FORMATS = ['csv', 'tsv', 'ndjson', 'json'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

const BY_EXTENSION: Record<string, InputFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
};

/** `--input-format` when given, else the file's extension; stdin needs the flag. */
export function inputFormatOf(path: string, explicit: InputFormat | undefined): InputFormat {
  if (explicit) return explicit;
  const hint = 'give --input-format csv|tsv|ndjson|json';
  if (path === '-') throw new UsageError('cannot tell the format of stdin', { hint });
  const format = BY_EXTENSION[extname(path).toLowerCase()];
  if (!format) throw new UsageError(`cannot tell the format of ${path} from its extension`, { hint });
  return format;
}

import { once } from 'node:events';
import { stringify, type Stringifier } from 'csv-stringify';
import { cellText, guardFormula } from './cell-text.js';
import type { DataFormat } from './format.js';

export type OutputRecord = Record<string, unknown>;

export interface RecordWriterOptions {
  format: DataFormat;
  /** Keys in output order; the CSV/TSV header. NDJSON/JSON write each record's own keys. */
  columns: string[];
  /** CSV/TSV: UTF-8 byte order mark first (spreadsheet programs). */
  bom?: boolean;
  /** CSV/TSV: CRLF line ends. */
  crlf?: boolean;
  /** CSV/TSV: join arrays of scalars with this separator. */
  join?: string;
  /** CSV/TSV: prefix text that starts like a formula with `'`. */
  safeFormulas?: boolean;
  /** CSV/TSV: cut cells longer than this many characters; each cut is reported to `onCut`. */
  maxCellChars?: number;
  onCut?: (column: string) => void;
}

export interface RecordWriter {
  /** Resolves when the sink has room again; await it to keep memory flat. */
  write(record: OutputRecord): Promise<void> | undefined;
  end(): Promise<void>;
}

const FLUSH_BYTES = 64 * 1024;

export function createRecordWriter(sink: NodeJS.WritableStream, options: RecordWriterOptions): RecordWriter {
  return options.format === 'csv' || options.format === 'tsv'
    ? delimitedWriter(sink, options)
    : jsonWriter(sink, options.format === 'json');
}

/** NDJSON (one object a line) or a JSON array streamed one element a line. */
function jsonWriter(sink: NodeJS.WritableStream, asArray: boolean): RecordWriter {
  let buffer = asArray ? '[' : '';
  let count = 0;
  const flush = (): Promise<void> | undefined => {
    const chunk = buffer;
    buffer = '';
    return sink.write(chunk) ? undefined : once(sink, 'drain').then(() => undefined);
  };
  return {
    write(record) {
      const json = JSON.stringify(record);
      buffer += asArray ? `${count === 0 ? '\n' : ',\n'}${json}` : `${json}\n`;
      count += 1;
      return buffer.length >= FLUSH_BYTES ? flush() : undefined;
    },
    async end() {
      if (asArray) buffer += count === 0 ? ']\n' : '\n]\n';
      if (buffer) await flush();
    },
  };
}

function delimitedWriter(sink: NodeJS.WritableStream, options: RecordWriterOptions): RecordWriter {
  const stringifier: Stringifier = stringify({
    delimiter: options.format === 'tsv' ? '\t' : ',',
    record_delimiter: options.crlf ? '\r\n' : '\n',
    bom: Boolean(options.bom),
  });
  stringifier.pipe(sink as NodeJS.WritableStream, { end: false });
  const failure = new Promise<never>((_, reject) => stringifier.once('error', reject));
  failure.catch(() => undefined);

  const render = (column: string, value: unknown): string => {
    let text = cellText(value, { join: options.join });
    if (options.maxCellChars !== undefined && text.length > options.maxCellChars) {
      text = text.slice(0, options.maxCellChars);
      options.onCut?.(column);
    }
    return options.safeFormulas && typeof value === 'string' ? guardFormula(text) : text;
  };

  stringifier.write(options.columns);
  return {
    write(record) {
      const fields = options.columns.map((column) => render(column, record[column]));
      if (stringifier.write(fields)) return undefined;
      return Promise.race([once(stringifier, 'drain').then(() => undefined), failure]);
    },
    async end() {
      const finished = once(stringifier, 'end');
      stringifier.end();
      await Promise.race([finished, failure]);
    },
  };
}

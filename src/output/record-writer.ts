import { createPageEncoder } from './page-encoder.js';
import type { DataFormat } from './format.js';
import type { OutputRecord } from '../records/row-shaper.js';

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

const RECORDS_PER_CHUNK = 256;

/** Streams records to `sink` in the chosen format, a chunk of records at a time, with backpressure. */
export function createRecordWriter(sink: NodeJS.WritableStream, options: RecordWriterOptions): RecordWriter {
  const encoder = createPageEncoder({ ...options, keys: options.columns });
  let pending: OutputRecord[] = [];
  let written = 0;
  const send = (chunk: Buffer): Promise<void> | undefined => {
    if (chunk.length === 0 || sink.write(chunk)) return undefined;
    return new Promise((resolve) => sink.once('drain', () => resolve()));
  };
  const flush = (): Promise<void> | undefined => {
    const records = pending;
    pending = [];
    const chunk = encoder.encode(records, written, options.onCut);
    written += records.length;
    return send(chunk);
  };
  const started = send(encoder.prelude());
  return {
    write(record) {
      pending.push(record);
      return pending.length >= RECORDS_PER_CHUNK ? flush() : undefined;
    },
    async end() {
      await started;
      await flush();
      await send(encoder.epilogue(written));
    },
  };
}

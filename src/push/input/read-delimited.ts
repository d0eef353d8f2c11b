import { CsvError, parse } from 'csv-parse';
import { DELIMITERS, InputError, type ParsedRecord, type ReadStats, setOwn, type PlainObject } from './input-record.js';

export interface DelimitedOptions {
  source: string;
  /** `auto`: the one of DELIMITERS the header line holds most of (a comma when none), told to `onDetected` */
  delimiter: string;
  onDetected?: (delimiter: string) => void;
  infer: boolean;
  relaxColumns: boolean;
  stats: ReadStats;
}

/**
 * CSV/TSV through csv-parse: the header row names the keys, an empty field leaves its key out, blank
 * lines are ignored. Yields the records of each piece of text as it is parsed.
 */
export async function* readDelimited(input: AsyncIterable<Buffer | string>, options: DelimitedOptions): AsyncGenerator<ParsedRecord[]> {
  const texts = input[Symbol.asyncIterator]();
  const first = await texts.next();
  let delimiter = options.delimiter;
  if (delimiter === 'auto') {
    delimiter = headerDelimiter(first.done ? '' : String(first.value));
    options.onDetected?.(delimiter);
  }
  const parser = parse({
    bom: true,
    delimiter,
    record_delimiter: ['\r\n', '\n'],
    skip_empty_lines: true,
    relax_column_count: options.relaxColumns,
    // TSV files often hold bare quotes (5" screen); CSV keeps RFC 4180's strict quoting.
    relax_quotes: delimiter === '\t',
  });
  const rows: string[][] = [];
  let failure: unknown;
  parser.on('data', (row: string[]) => rows.push(row));
  parser.on('error', (error) => (failure ??= error));
  const ended = new Promise<void>((resolve) => parser.once('end', resolve).once('error', () => resolve()));

  let header: string[] | undefined;
  const toRecords = (): ParsedRecord[] => {
    const out: ParsedRecord[] = [];
    for (const row of rows) {
      if (header === undefined) header = checkHeader(row, options.source);
      else out.push({ record: ++options.stats.records, value: rowObject(header, row, options) });
    }
    rows.length = 0;
    return out;
  };

  for (let next = first; !next.done; next = await texts.next()) {
    const text = next.value;
    parser.write(text);
    const records = toRecords();
    if (records.length > 0) yield records;
    if (failure) throw csvInputError(failure, options.source, header?.length);
  }
  parser.end();
  await ended;
  const records = toRecords();
  if (records.length > 0) yield records;
  if (failure) throw csvInputError(failure, options.source, header?.length);
}

/**
 * The delimiter of a header line (Excel writes `;` in most of Europe): the one of DELIMITERS it holds
 * most of outside quotes; a comma when it holds none (a header of one column).
 */
export function headerDelimiter(text: string): string {
  const line = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 1)[0]!
    .replace(/"[^"]*"/g, '');
  let best = ',';
  let most = 0;
  for (const candidate of Object.keys(DELIMITERS)) {
    const n = line.split(candidate).length - 1;
    if (n > most) [best, most] = [candidate, n];
  }
  return best;
}

function checkHeader(row: string[], source: string): string[] {
  const seen = new Map<string, number[]>();
  row.forEach((name, index) => seen.set(name, [...(seen.get(name) ?? []), index + 1]));
  const duplicates = [...seen].filter(([, columns]) => columns.length > 1);
  if (duplicates.length > 0) {
    const list = duplicates.map(([name, columns]) => `${JSON.stringify(name)} (columns ${columns.join(', ')})`).join(', ');
    throw new InputError(source, { line: 1 }, `duplicate column names in the header: ${list}`, 'give every column a unique name');
  }
  return row;
}

function rowObject(header: string[], row: string[], options: DelimitedOptions): PlainObject {
  const object: PlainObject = {};
  const width = Math.min(header.length, row.length);
  for (let i = 0; i < width; i += 1) {
    const text = row[i]!;
    if (text === '') continue;
    const key = header[i]!;
    const value = options.infer ? inferValue(text) : text;
    if (key === '__proto__') setOwn(object, key, value);
    else object[key] = value;
  }
  if (row.length > header.length && row.slice(header.length).some((text) => text !== '')) options.stats.extraFieldRows += 1;
  return object;
}

function csvInputError(error: unknown, source: string, headerWidth: number | undefined): unknown {
  if (!(error instanceof CsvError)) return error;
  const details = error as CsvError & { lines?: number; records?: number; record?: string[] };
  if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
    return new InputError(
      source,
      { record: details.records, line: details.lines },
      `the row has ${details.record?.length ?? 'another number of'} fields, the header has ${headerWidth}`,
      'fix the row, or pass --relax-columns to accept rows with missing or extra fields',
    );
  }
  return new InputError(source, { line: details.lines }, error.message.replace(/ (at|on) line \d+/, ''));
}

// `--types infer`: CSV/TSV text that is plainly a number or a boolean becomes one; anything that would
// change when written back (leading zeros, `-0`, digits past double precision, `TRUE`) stays text.

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const MAX_EXACT_DIGITS = 15;

export function inferValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text.length > MAX_EXACT_DIGITS + 2 || !NUMBER.test(text) || text === '-0') return text;
  const digits = text
    .replace(/^-/, '')
    .replace('.', '')
    .replace(/^0+(?=\d)/, '');
  return digits.length <= MAX_EXACT_DIGITS ? Number(text) : text;
}

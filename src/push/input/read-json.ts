import { describeJsonFault } from '../../core/json-error.js';
import { parseExact, type ExactValue } from './exact-numbers.js';
import { InputError, type ParsedRecord, type ReadStats } from './input-record.js';
import { DATA_ALONE, JsonFrameError, JsonRecordSplitter, type RawRecord } from './json-splitter.js';
import { toObjectRecord } from './to-object-record.js';

/**
 * JSON: one object, an array of objects, or {"data": [...]}; arrays are read element by element. The
 * records before a bad one are handed out before its error is thrown.
 */
export async function* readJson(texts: AsyncIterable<string>, source: string, stats: ReadStats): AsyncGenerator<ParsedRecord[]> {
  const splitter = new JsonRecordSplitter();
  /** The records of these raw texts; the ones before a bad record come with its error. */
  const convert = (raws: RawRecord[]): { records: ParsedRecord[]; error?: unknown } => {
    const records: ParsedRecord[] = [];
    try {
      for (const raw of raws) {
        const record = ++stats.records;
        let parsed: ExactValue;
        try {
          parsed = parseExact(raw.text);
        } catch {
          throw new InputError(
            source,
            { record, line: raw.line },
            `not valid JSON (${describeJsonFault(raw.text) ?? 'unreadable'} of the record)`,
          );
        }
        const input = toObjectRecord(parsed, { source, record, line: raw.line });
        if (raw.single && Array.isArray(input.value.data)) throw new InputError(source, {}, DATA_ALONE);
        records.push(input);
      }
    } catch (error) {
      return { records, error };
    }
    return { records };
  };
  const raws = async function* (): AsyncGenerator<RawRecord[]> {
    try {
      for await (const text of texts) yield splitter.push(text);
      yield splitter.end();
    } catch (error) {
      if (error instanceof JsonFrameError) throw new InputError(source, { line: error.line }, error.message);
      throw error;
    }
  };
  for await (const chunk of raws()) {
    const { records, error } = convert(chunk);
    if (records.length > 0) yield records;
    if (error) throw error;
  }
}

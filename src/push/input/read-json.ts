import { InputError } from './input-error.js';
import { DATA_ALONE, JsonFrameError, JsonRecordSplitter, type RawRecord } from './json-splitter.js';
import type { InputRecord, ReadStats } from './input-record.js';
import { toObjectRecord } from './to-object-record.js';

/**
 * JSON: one object, an array of objects, or {"data": [...]}; arrays are read element by element. The
 * records before a bad one are handed out before its error is thrown.
 */
export async function* readJson(texts: AsyncIterable<string>, source: string, stats: ReadStats): AsyncGenerator<InputRecord[]> {
  const splitter = new JsonRecordSplitter();
  /** The records of these raw texts; the ones before a bad record come with its error. */
  const convert = (raws: RawRecord[]): { records: InputRecord[]; error?: unknown } => {
    const records: InputRecord[] = [];
    try {
      for (const raw of raws) {
        const record = ++stats.records;
        let value: unknown;
        try {
          value = JSON.parse(raw.text);
        } catch (error) {
          throw new InputError(source, { record, line: raw.line }, `not valid JSON: ${(error as Error).message}`);
        }
        const input = toObjectRecord(value, { source, record, line: raw.line });
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

import { findJsonFault } from '../../core/json-error.js';
import { parseExact, type ExactValue } from './exact-numbers.js';
import { InputError, type ParsedRecord, type ReadStats } from './input-record.js';
import { toObjectRecord } from './to-object-record.js';

/**
 * NDJSON: one JSON object a line; blank lines are ignored; CRLF accepted. The records before a bad
 * line are handed out before its error is thrown.
 */
export async function* readNdjson(texts: AsyncIterable<string>, source: string, stats: ReadStats): AsyncGenerator<ParsedRecord[]> {
  let rest = '';
  let line = 0;
  const parseLines = (lines: string[]): { records: ParsedRecord[]; error?: unknown } => {
    const records: ParsedRecord[] = [];
    try {
      for (const text of lines) {
        line += 1;
        if (text.trim() === '') continue;
        const record = ++stats.records;
        let parsed: ExactValue;
        try {
          parsed = parseExact(text);
        } catch {
          const fault = findJsonFault(text);
          throw new InputError(source, { line }, `not valid JSON at column ${fault?.column ?? 1}: ${fault?.problem ?? 'unreadable'}`);
        }
        records.push(toObjectRecord(parsed, { source, record, line }));
      }
    } catch (error) {
      return { records, error };
    }
    return { records };
  };
  const lines = async function* (): AsyncGenerator<string[]> {
    for await (const text of texts) {
      const parts = (rest + text).split('\n');
      rest = parts.pop()!;
      yield parts;
    }
    yield [rest];
  };
  for await (const batch of lines()) {
    const { records, error } = parseLines(batch);
    if (records.length > 0) yield records;
    if (error) throw error;
  }
}

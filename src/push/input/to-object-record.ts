import { InputError, type ParsedRecord } from './input-record.js';
import type { PlainObject } from './nest-keys.js';
import type { ExactValue } from './exact-numbers.js';

/** A parsed JSON value as a record, or an input error naming the record when it is not an object. */
export function toObjectRecord(parsed: ExactValue, where: { source: string; record: number; line?: number }): ParsedRecord {
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new InputError(
      where.source,
      { record: where.record, line: where.line },
      `not an object (${kind}); each record must be a JSON object`,
    );
  }
  return { record: where.record, value: value as PlainObject, ...(parsed.numbers ? { numbers: parsed.numbers } : {}) };
}

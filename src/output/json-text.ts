import type { OutputRecord } from '../records/output-record.js';

// JSON text of a record with its keys in the plan's order. JSON.stringify writes keys that look
// like array indexes ("2024") first whatever the insertion order, so when a key does, the object
// is written key by key instead.

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

export type RecordToJson = (record: OutputRecord) => string;

export function recordToJson(keys: readonly string[]): RecordToJson {
  const reordered = keys.some((key) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1);
  if (!reordered) return (record) => JSON.stringify(record);
  const prefixes = keys.map((key, i) => `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`);
  return (record) => {
    let text = '';
    for (let i = 0; i < keys.length; i += 1) text += prefixes[i]! + (JSON.stringify(record[keys[i]!]) ?? 'null');
    return keys.length === 0 ? '{}' : `${text}}`;
  };
}

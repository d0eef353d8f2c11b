import { makeBatch, type Batch } from '../../../src/push/plan/batch.js';

/** `count` batches of `size` records each, numbered from 1; with `keyed`, record r has the key `k<r>`. */
export function batches(count: number, size = 3, keyed = false): Batch[] {
  return Array.from({ length: count }, (_, b) =>
    makeBatch(
      b + 1,
      '',
      Array.from({ length: size }, (_, i) => {
        const record = b * size + i + 1;
        const json = JSON.stringify({ r: record });
        return { record, json, bytes: json.length, ...(keyed ? { key: `k${record}` } : {}) };
      }),
    ),
  );
}

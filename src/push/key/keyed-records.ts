import { UsageError } from '../../core/errors.js';
import type { InputRecord } from '../input/input-record.js';
import { foldKey, type KeyColumn } from './key-column.js';
import type { PushedKeys } from './pushed-keys.js';
import { recordKey, type KeyMapping } from './record-key.js';

export interface KeyedOptions {
  spec: KeyMapping;
  column: KeyColumn;
  /** `error`: the first repeated key stops the push (exit 2) */
  onDuplicate: 'skip' | 'error';
  source: string;
  /** collects each record's key in input order */
  keys?: PushedKeys;
}

/**
 * Each record's key, compared as the service compares it: a record whose key repeats an earlier
 * one's, or that has no usable key, is marked to be left out (counted as a duplicate, or rejected).
 */
export async function* keyedRecords(chunks: AsyncIterable<InputRecord[]>, options: KeyedOptions): AsyncGenerator<InputRecord[]> {
  const first = new Map<string, number>();
  for await (const chunk of chunks) {
    for (const input of chunk) {
      const found = recordKey(input.value, input.numbers, options.spec.field);
      if ('problem' in found) {
        input.excluded = { kind: 'keyless', reason: found.problem };
        continue;
      }
      if (options.column.field.type === 'number' && !Number.isFinite(Number(found.key.trim()))) {
        input.excluded = {
          kind: 'keyless',
          reason: `its ${JSON.stringify(options.spec.field)} is not a number, and the column "${options.column.field.label}" holds numbers`,
        };
        continue;
      }
      const key = foldKey(options.column, found.key);
      const earlier = first.get(key);
      if (earlier === undefined) {
        first.set(key, input.record);
        input.key = key;
        options.keys?.add(input.record, key);
      } else if (options.onDuplicate === 'error') {
        throw new UsageError(
          `${options.source}: records ${earlier} and ${input.record} have the same key ${JSON.stringify(found.key)} (--on-duplicate error)`,
          {
            hint: 'remove one of them, or leave out --on-duplicate error to send the first and skip the others',
          },
        );
      } else {
        input.excluded = { kind: 'duplicate', of: earlier, key: found.key };
      }
    }
    yield chunk;
  }
}

import { describe, expect, it } from 'vitest';
import { readAhead } from '../../src/export/read-ahead.js';

/** A source that records when each item is asked for, relative to what the consumer did. */
function source(items: number[], events: string[], failAt?: number): AsyncIterable<number> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const item of items) {
        events.push(`fetch ${item}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (item === failAt) throw new Error(`failed ${item}`);
        yield item;
      }
    },
  };
}

describe('readAhead', () => {
  it('asks for the next item before the consumer handles the current one', async () => {
    const events: string[] = [];
    for await (const item of readAhead(source([1, 2, 3], events), true)) events.push(`handle ${item}`);
    expect(events).toEqual(['fetch 1', 'fetch 2', 'handle 1', 'fetch 3', 'handle 2', 'handle 3']);
  });

  it('without read-ahead asks only when the consumer is ready', async () => {
    const events: string[] = [];
    for await (const item of readAhead(source([1, 2, 3], events), false)) events.push(`handle ${item}`);
    expect(events).toEqual(['fetch 1', 'handle 1', 'fetch 2', 'handle 2', 'fetch 3', 'handle 3']);
  });

  it('passes an error on, and ignores a read-ahead that fails after the consumer stopped', async () => {
    const events: string[] = [];
    await expect(async () => {
      for await (const item of readAhead(source([1, 2, 3], events, 2), true)) events.push(`handle ${item}`);
    }).rejects.toThrow('failed 2');
    for await (const item of readAhead(source([1, 2], [], 2), true)) {
      expect(item).toBe(1);
      break; // item 2 is being read ahead and fails: nothing unhandled
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});

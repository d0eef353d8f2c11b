import { describe, expect, it } from 'vitest';
import { classifyPost } from '../../../src/push/deliver/classify.js';
import { postLogLine } from '../../../src/push/deliver/post-log.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import { splitBatch } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';

const [batch] = batches(7, 3).slice(6); // records 19–21, 3 objects of 8 bytes, a body of 28
const response = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 12.4 });

describe('postLogLine', () => {
  it.each<[string, WireResult, Parameters<typeof postLogLine>[1]['decision'], string]>([
    [
      'an answer taken in',
      response(200, '{"success":true}'),
      undefined,
      'POST hook 200 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → accepted',
    ],
    [
      'a 429 to be tried again',
      response(429),
      { retry: true, reason: 'rate-limited', waitMs: 10.6 },
      'POST hook 429 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → retry; retry in 11ms',
    ],
    [
      'a 429 given up',
      response(429),
      { retry: false, why: 'exhausted', reason: 'rate-limited' },
      'POST hook 429 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → retry',
    ],
    [
      'no answer: the failure named',
      { kind: 'failure', code: 'ECONNRESET', message: 'socket hang up', ms: 3 },
      undefined,
      'POST hook connection reset (ECONNRESET) 3ms: batch 7, records 19–21 (3 objects, 28 bytes) → uncertain',
    ],
  ])('%s', (_name, wire, decision, line) => {
    expect(postLogLine('hook', { batch: batch!, wire, outcome: classifyPost(wire), decision })).toBe(line);
  });

  it('names a part of a batch that a 413 split', () => {
    const [half] = splitBatch(batch!);
    expect(postLogLine('hook', { batch: half!, wire: response(202), outcome: classifyPost(response(202)) })).toContain(
      'batch 7.1, records 19–20 (2 objects, 19 bytes) → accepted',
    );
  });
});

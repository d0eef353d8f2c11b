import { describe, expect, it } from 'vitest';
import { makeBatch } from '../../../src/push/plan/batch.js';
import { incompleteError } from '../../../src/push/report/push-report.js';
import type { StopReason } from '../../../src/push/deliver/classify.js';
import { buildSummary, formatSummary } from '../../../src/push/report/summary.js';
import { add, PushTally } from '../../../src/push/plan/tally.js';

const batch = (number: number, first: number, count: number) =>
  makeBatch(
    number,
    '',
    Array.from({ length: count }, (_, i) => ({ record: first + i, json: '{"a":1}', bytes: 7 })),
  );

function summaryOf(
  build: (tally: PushTally) => void,
  notSent: number | null = 0,
  extra: { rejects?: string; seconds?: number; sendSeconds?: number; checkSeconds?: number } = {},
) {
  const tally = new PushTally();
  build(tally);
  return buildSummary({
    input: 'in.csv',
    format: 'csv',
    webhook: 'https://h/…abcd',
    dryRun: false,
    resumed: false,
    read: 100,
    tally,
    notSent,
    seconds: 2,
    ...extra,
  });
}

describe('incompleteError', () => {
  it('is nothing when every record was sent', () => {
    expect(incompleteError({ summary: summaryOf((t) => add(t.sent, batch(1, 1, 100))), stops: [] })).toBeUndefined();
  });

  it.each<{ name: string; build: (t: PushTally) => void; notSent: number | null; stops: StopReason[]; message: RegExp; hint?: RegExp }>([
    {
      name: 'uncertain',
      build: (t) => t.markUncertain(batch(3, 21, 10), 'HTTP 500: boom'),
      notSent: 0,
      stops: [{ kind: 'uncertain', detail: 'HTTP 500' }],
      message: /10 records are uncertain \(records 21–30, batch 3: HTTP 500: boom\)/,
      hint: /--resume --accept-uncertain 3 for the batches whose records are there and --resume --resend-uncertain 3 for those missing/,
    },
    {
      name: 'rejected',
      build: (t) => t.reject([4, 5, 9], true),
      notSent: 0,
      stops: [],
      message: /3 records were rejected \(records 4–5, 9\)/,
      hint: /--rejects FILE/,
    },
    {
      name: 'not sent',
      build: () => undefined,
      notSent: 40,
      stops: [{ kind: 'gave-up', detail: 'batch 2: HTTP 429 after 6 attempts' }],
      message: /40 records not sent \(batch 2: HTTP 429 after 6 attempts\)/,
      hint: /--resume to send the rest/,
    },
    {
      name: 'the rest of a streamed input',
      build: () => undefined,
      notSent: null,
      stops: [{ kind: 'refused', status: 401, detail: 'HTTP 401' }],
      // the input is named: a file read as it streams is not "stdin" (issue 15, item 15)
      message: /the rest of in\.csv not sent \(HTTP 401\)/,
      hint: /--resume/,
    },
  ])('$name → exit 7 with what to do', ({ build, notSent, stops, message, hint }) => {
    const error = incompleteError({ summary: summaryOf(build, notSent), stops });
    expect(error?.exitCode).toBe(7);
    expect(error?.message).toMatch(message);
    if (hint) expect(error?.hint).toMatch(hint);
  });

  it('is NOT_FOUND (exit 4) when the webhook answered 404 part way', () => {
    const error = incompleteError({
      summary: summaryOf(() => undefined, 10),
      stops: [{ kind: 'refused', status: 404, detail: 'HTTP 404' }],
    });
    expect(error?.exitCode).toBe(4);
  });

  it('names the rejects file, and a --wait that saw too few rows', () => {
    const summary = {
      ...summaryOf((t) => t.reject([7]), 0, { rejects: 'bad.ndjson' }),
      wait: { mode: 'visible' as const, table: 't', before: 0, after: 3, expected: 5, appeared: 3, seconds: 60, complete: false },
    };
    const error = incompleteError({ summary, stops: [] });
    expect(error?.hint).toContain('bad.ndjson holds each rejected record');
    expect(error?.message).toContain('only 3 of 5 new rows were visible after 60 s');
    expect(error?.hint).toContain('do not re-send');
  });
});

describe('formatSummary', () => {
  it('shows the counts a person needs, without secrets beyond the redacted webhook', () => {
    const text = formatSummary(
      summaryOf((t) => {
        add(t.sent, batch(1, 1, 90));
        t.skipped = 2;
        t.reject([95], true);
        t.markUncertain(batch(2, 91, 5));
      }, 3),
    );
    expect(text).toContain('push of in.csv (csv) to https://h/…abcd');
    expect(text).toMatch(/sent\s+90 in 1 batch /);
    expect(text).toMatch(/skipped\s+2 \(empty\)/);
    expect(text).toMatch(/rejected\s+1 \(1 too large\): records 95/);
    expect(text).toMatch(/uncertain\s+5: records 91–95 \(batch 2\)/);
    expect(text).toMatch(/not sent yet\s+3/);
    expect(text).toMatch(/time\s+2\.0 s, 45 records\/s/);
  });
});

describe("the summary's rate", () => {
  it('keeps one decimal below 10 records a second (2 records in 6.6 s are 0.3 a second, not 0)', () => {
    const rate = (sent: number, seconds: number): number =>
      summaryOf((t) => add(t.sent, batch(1, 1, sent)), 0, { seconds }).recordsPerSecond;
    expect(rate(2, 6.6)).toBe(0.3);
    expect(rate(95, 10)).toBe(9.5);
    expect(rate(1234, 10)).toBe(123);
  });

  it('counts sending only: not the check of the file before, nor the wait for the rows after', () => {
    const summary = summaryOf((t) => add(t.sent, batch(1, 1, 100)), 0, { seconds: 20, checkSeconds: 1, sendSeconds: 2 });
    expect(summary.recordsPerSecond).toBe(50);
    expect(formatSummary(summary)).toMatch(/time\s+20\.0 s \(1\.0 s checking the input; 2\.0 s sending, 50 records\/s\)\n/);
  });
});

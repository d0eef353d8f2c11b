import { describe, expect, it } from 'vitest';
import {
  firstFlight,
  inFlightFor,
  MAX_IN_FLIGHT,
  nextFlight,
  nextOverhead,
  type FlightAnswer,
  type FlightLimits,
  type FlightState,
} from '../../../src/push/deliver/in-flight.js';

// The in-flight rule (in-flight.ts) as a table: round trips, rate and answers in, requests in flight out.

const WEBHOOK: FlightLimits = { rate: 100, windowMs: 1000 };
const answered = (rttMs: number): FlightAnswer => ({ kind: 'answered', rttMs });

/** The state after these answers, from the start. */
function after(answers: FlightAnswer[]): FlightState {
  return answers.reduce(nextFlight, firstFlight());
}

/** `count` answers of the same round trip. */
const steady = (rttMs: number, count = 60): FlightAnswer[] => Array.from({ length: count }, () => answered(rttMs));

describe('inFlightFor', () => {
  it.each<[string, FlightAnswer[], FlightLimits, number]>([
    ['no round trip measured yet: 4, as before', [], WEBHOOK, 4],
    ['no slow start: 4 answers of 200 ms, rate × RTT with the jitter of few samples', steady(200, 4), WEBHOOK, 48],
    ['12 answers of 200 ms: the jitter of few samples fades', steady(200, 12), WEBHOOK, 29],
    ['loopback (1 ms): 2 are enough for 100 a second', steady(1), WEBHOOK, 2],
    ['50 ms: rate × RTT = 5, with headroom 8', steady(50), WEBHOOK, 8],
    ['200 ms: rate × RTT = 20, with headroom 27', steady(200), WEBHOOK, 27],
    ['400 ms: rate × RTT = 40, with headroom 52', steady(400), WEBHOOK, 52],
    ['2 s: the bound, the rate', steady(2000), WEBHOOK, MAX_IN_FLIGHT],
    [
      'a queue at the service (200 ms, then 800): the shortest way counts, not the queue',
      [...steady(200, 20), ...steady(800, 40)],
      WEBHOOK,
      29,
    ],
    ['200 ms under --concurrency 8: the user ceiling', steady(200), { ...WEBHOOK, ceiling: 8 }, 8],
    ['200 ms at --rate 10: 10 a second need 4', steady(200), { ...WEBHOOK, rate: 10 }, 4],
    ['1 s at --rate 10: never more than the limit', steady(1000), { ...WEBHOOK, rate: 10 }, 10],
    ['200 ms, windows scaled 10× (TDS_RATE_SCALE 10)', steady(20), { rate: 100, windowMs: 100 }, 27],
  ])('%s', (_name, answers, limits, expected) => {
    expect(inFlightFor(after(answers), limits)).toBe(expected);
  });

  it("before any POST is answered, the webhook check's time stands for the round trip; a POST's answer replaces it", () => {
    const checked: FlightState = { ...firstFlight(), checkMs: 250 };
    expect(inFlightFor(checked, WEBHOOK)).toBe(33);
    expect(inFlightFor(checked, { ...WEBHOOK, ceiling: 8 })).toBe(8);
    expect(inFlightFor(steady(200).reduce(nextFlight, checked), WEBHOOK)).toBe(27);
  });

  it('a request that keeps its place 50 ms beyond its round trip (a busy disk under the journal) counts them', () => {
    const busy = Array.from({ length: 60 }, () => 50).reduce(nextOverhead, after(steady(200)));
    expect(inFlightFor(busy, WEBHOOK)).toBe(33);
    expect(inFlightFor(nextOverhead(busy, -5), WEBHOOK)).toBeLessThanOrEqual(33);
  });

  it('a jittery round trip keeps more in flight than a steady one of the same mean', () => {
    const jittery = Array.from({ length: 60 }, (_, i) => answered(i % 2 === 0 ? 150 : 250));
    expect(inFlightFor(after(jittery), WEBHOOK)).toBeGreaterThan(inFlightFor(after(steady(200)), WEBHOOK));
  });
});

describe('answers: 429 and 5xx halve the window, answers grow it back by one a round', () => {
  it.each<[string, FlightAnswer[], number]>([
    ['one 429 at 200 ms: the window halves, 100 → 50 (rate × RTT needs 27)', [...steady(200), { kind: 'throttled' }], 27],
    ['three 5xx at 200 ms: 100 → 12', [...steady(200), ...Array<FlightAnswer>(3).fill({ kind: 'server-error' })], 12],
    ['six 5xx: 1, never 0', [...steady(200), ...Array<FlightAnswer>(6).fill({ kind: 'server-error' })], 1],
    [
      'six 5xx, then 40 answers: back to 10',
      [...steady(200), ...Array<FlightAnswer>(6).fill({ kind: 'server-error' }), ...steady(200, 40)],
      9,
    ],
  ])('%s', (_name, answers, expected) => {
    expect(inFlightFor(after(answers), WEBHOOK)).toBe(expected);
  });
});

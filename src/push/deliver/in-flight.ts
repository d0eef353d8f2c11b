import type { WireResult } from './webhook-client.js';

// How many webhook requests a push keeps in flight: what the network needs to carry the webhook's rate.
//
// The ceiling of a push is the webhook's rate (100 requests a second), not the round trip: a sender
// with N requests in flight and a round trip of RTT sends at most N / RTT a second, so it keeps about
// rate × RTT in flight (the bandwidth-delay product), as TCP's congestion control does. The round trip is
// measured on the push's own requests: the shortest of the last 100 (the way there and back; a queue
// at an overloaded service would only grow with more requests, as BBR reasons), plus a jitter headroom
// of 4 mean deviations (as TCP's timer of RFC 6298), at most as much again, plus the time a request
// keeps its place beyond its round trip (the journal's fsync before it leaves and after its answer:
// milliseconds on an idle disk, tens on a busy one; smoothed as the round trip is), and 25 % more. Until the
// first answer, the webhook check's time (HEAD) stands for the round trip; 4 are sent when there was
// none. A congestion window bounds
// it: 429s and 5xx halve it, and it grows back by one request per round of answers (AIMD), so a service
// in trouble gets fewer requests at once. Unlike TCP's, it starts open, with no slow start: what a
// slow start probes for, the capacity of the way, is declared here (the webhook's rate), and the rate
// limiter, not this count, spaces requests to it: more in flight never sends faster than the limit allows.

/** The most requests in flight: the webhook's rate a second (a round trip up to about 0.8 s, with headroom, needs no more). */
export const MAX_IN_FLIGHT = 100;
/** The most bytes of request bodies in flight (a body is up to 1 MB; send-batches.ts keeps to it whatever the count). */
export const MAX_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
/** Before any round trip is known, not even the webhook check's (a push's first requests). */
const FIRST_IN_FLIGHT = 4;
const HEADROOM = 1.25;
const MIN_RTT_SAMPLES = 100;

export interface FlightState {
  /** smoothed round trip, ms (undefined: none measured yet) */
  srttMs?: number;
  /** mean deviation of the round trip, ms */
  rttvarMs: number;
  /** the congestion window: halved on 429 and 5xx, grows back by one per round of answers */
  window: number;
  /** the shortest round trip of the last 100 answers (the way there and back without queues), ms */
  minRttMs?: number;
  /** the shortest of the answers since the last 100 began, and how many there were */
  recentMinMs?: number;
  recent: number;
  /** smoothed time a request keeps its place in flight beyond its round trip (journaling, counting), ms */
  overheadMs: number;
  /** the webhook check's time (HEAD, a connection's set-up included): the round trip's first, high guess */
  checkMs?: number;
}

export interface FlightLimits {
  /** requests allowed per window of the webhook's limit (--rate: 100 by default) */
  rate: number;
  /** the window of that limit, ms (1000, divided by the rate scale) */
  windowMs: number;
  /** --concurrency, the user's ceiling */
  ceiling?: number | undefined;
}

/** What a push's summary tells: the round trip as measured (ms), the most requests in flight at once, and how many the rule allowed. */
export interface NetworkFigures {
  roundTripMs: number;
  /** never more than the requests the push made */
  inFlight: number;
  /** the webhook's rate × the round trip, within --concurrency */
  allowed: number;
}

/** What one request of the push ended with. */
export type FlightAnswer = { kind: 'answered'; rttMs: number } | { kind: 'throttled' } | { kind: 'server-error' };

export function firstFlight(): FlightState {
  return { rttvarMs: 0, window: MAX_IN_FLIGHT, recent: 0, overheadMs: 0 };
}

/** The state after one more answer (pure). */
export function nextFlight(state: FlightState, answer: FlightAnswer): FlightState {
  if (answer.kind !== 'answered') {
    const window = Math.max(1, Math.floor(state.window / 2));
    return { ...state, window };
  }
  const window = Math.min(MAX_IN_FLIGHT, state.window + 1 / state.window);
  const rtt = answer.rttMs;
  const recentMinMs = Math.min(state.recentMinMs ?? rtt, rtt);
  // the minimum of the last 100 answers, renewed every 100: a longer way stays seen, a queue that went does not
  const renewed = state.recent + 1 >= MIN_RTT_SAMPLES;
  const minima = {
    minRttMs: renewed ? recentMinMs : Math.min(state.minRttMs ?? rtt, rtt),
    ...(renewed ? { recent: 0 } : { recentMinMs, recent: state.recent + 1 }),
  };
  if (state.srttMs === undefined) return { ...state, srttMs: rtt, rttvarMs: rtt / 2, window, ...minima };
  const rttvarMs = 0.75 * state.rttvarMs + 0.25 * Math.abs(state.srttMs - rtt);
  return { ...state, srttMs: 0.875 * state.srttMs + 0.125 * rtt, rttvarMs, window, ...minima };
}

/** The state after one more request's time in flight beyond its round trip (pure). */
export function nextOverhead(state: FlightState, ms: number): FlightState {
  return { ...state, overheadMs: 0.875 * state.overheadMs + 0.125 * Math.max(0, ms) };
}

/** How many requests to keep in flight (pure): rate × RTT with headroom, within the window and every bound. */
export function inFlightFor(state: FlightState, limits: FlightLimits): number {
  const bound = Math.min(MAX_IN_FLIGHT, limits.rate, limits.ceiling ?? Infinity, Math.floor(state.window));
  const { minRttMs, checkMs } = state;
  if (minRttMs === undefined && checkMs === undefined) return Math.max(1, Math.min(FIRST_IN_FLIGHT, bound));
  // until a POST is answered, the check's time (high: it opened the connection) stands for the round trip
  const roundTrip = minRttMs === undefined ? checkMs! : minRttMs + Math.min(4 * state.rttvarMs, minRttMs) + state.overheadMs;
  const needed = Math.ceil(((limits.rate * roundTrip) / limits.windowMs) * HEADROOM) + 1;
  return Math.max(1, Math.min(needed, bound));
}

/** What a request's result tells the rule: its round trip, or a 429 or a 5xx (a failure counts as one). */
export function answerOf(result: WireResult): FlightAnswer {
  if (result.kind === 'failure') return { kind: 'server-error' };
  if (result.status === 429) return { kind: 'throttled' };
  if (result.status >= 500) return { kind: 'server-error' };
  return { kind: 'answered', rttMs: result.ms };
}

/** The in-flight rule of one push: its state, fed by every request's result, and the count it arrives at. */
export class FlightControl {
  private state = firstFlight();
  private shown = 0;

  constructor(
    private readonly limits: FlightLimits,
    /** --verbose: a line each time the count changes */
    private readonly log?: (line: string) => void,
  ) {}

  note(result: WireResult): void {
    this.state = nextFlight(this.state, answerOf(result));
  }

  /** The webhook check (HEAD) answered in `ms`: a first guess of the round trip. */
  noteCheck(ms: number): void {
    this.state = { ...this.state, checkMs: ms };
  }

  /** A request kept its place in flight `ms` beyond its round trip. */
  noteOverhead(ms: number): void {
    this.state = nextOverhead(this.state, ms);
  }

  /** The requests to keep in flight now. */
  get limit(): number {
    const limit = inFlightFor(this.state, this.limits);
    if (limit !== this.shown && this.log) this.log(`in flight: up to ${limit} requests (${this.describe()})`);
    this.shown = limit;
    return limit;
  }

  /** What the summary tells: the round trip measured (ms) and the count the rule allows now. */
  get chosen(): { roundTripMs: number; allowed: number } | undefined {
    const { srttMs } = this.state;
    return srttMs === undefined ? undefined : { roundTripMs: Math.round(srttMs), allowed: inFlightFor(this.state, this.limits) };
  }

  private describe(): string {
    const { srttMs, rttvarMs, window, overheadMs } = this.state;
    if (srttMs === undefined) return 'no round trip measured yet';
    const ceiling = this.limits.ceiling !== undefined ? `, --concurrency ${this.limits.ceiling}` : '';
    return `round trip ${Math.round(srttMs)} ms ± ${Math.round(rttvarMs)} and ${Math.round(overheadMs)} ms journaling, window ${Math.floor(window)}${ceiling}`;
  }
}

import { INTAKE_MAX_MS } from '../../service/index.js';

// When may a key sent to the webhook be declared missing from the table? docs/service-api.md 4.7 rule 4:
// rows appear about 5 s after the last request to the webhook (anyone's), and up to about 30 s while
// requests keep arriving. The intake takes in what is pending at once, in the order requests came, and
// a request's rows show together. So a key found is found at any time; a key not found is missing only
// once the rows of its request must show if they ever will:
// - the longest intake window has passed since the request could last have reached the webhook;
// - or some row of that very request shows (its other rows came with it);
// - or a row of a later request shows: one of ours sent after this one had ended, or any row whose
//   createdAt (the service's clock) is later than this request's arrival could be on that clock.
// The service's clock is never compared with ours as it is: rows of our own requests show how far
// ahead of ours it can be (a row's createdAt is its request's arrival, which came after the request
// left), and only that bound turns our time into the service's.

/** The longest intake window: "about 30 s", with a fifth more for the "about". */
export const INTAKE_LONGEST_MS = INTAKE_MAX_MS * 1.2;

/** The intake's times as this run waits them: the service's, divided by TDS_RATE_SCALE (push-timings.ts). */
export interface IntakeTiming {
  /** the longest intake window (INTAKE_LONGEST_MS) */
  windowMs: number;
  /** the quiet period after the last request to the webhook, before its rows show (INTAKE_QUIET_MS) */
  quietMs: number;
  /** how often the table's rowCount is read while rows are awaited */
  pollMs: number;
}

/** One request to the webhook, on the local clock (ms). */
export interface SentRequest {
  /** when it left; -Infinity when not known (a request of an earlier run) */
  start: number;
  /** when it had reached the webhook by, if it ever did (its answer came, or it was cut off) */
  end: number;
}

/** A row of one of our requests that the table shows, with its createdAt on the service's clock. */
export interface VisibleRow {
  request: SentRequest;
  createdAt: number;
}

export interface IntakeEvidence {
  /** the local time the lookup that decides starts at (evidence gathered before it) */
  now: number;
  /** the longest intake window, as this run waits it (IntakeTiming.windowMs) */
  windowMs: number;
  /** some row of the request itself shows */
  ownRowVisible: boolean;
  /** rows of our requests that show */
  visible: readonly VisibleRow[];
  /** the newest createdAt the table shows (service clock), when read */
  newestCreatedAt?: number;
}

export type MissingProof = 'window' | 'own-row' | 'later-request' | 'later-row';

/**
 * Why the keys of `request` that a lookup starting at `evidence.now` does not find are missing, or
 * undefined while they could still appear.
 */
export function missingProof(request: SentRequest, evidence: IntakeEvidence): MissingProof | undefined {
  if (evidence.ownRowVisible) return 'own-row';
  if (evidence.now >= request.end + evidence.windowMs) return 'window';
  if (evidence.visible.some((row) => row.request.start > request.end)) return 'later-request';
  const ahead = serviceAheadAtMost(evidence.visible);
  if (ahead !== undefined && evidence.newestCreatedAt !== undefined && evidence.newestCreatedAt > request.end + ahead) {
    return 'later-row';
  }
  return undefined;
}

/**
 * How far the service's clock is ahead of ours at most (ms, negative when behind), from rows of our
 * requests: a row's createdAt is the service's time when its request arrived, after it left.
 */
export function serviceAheadAtMost(visible: readonly VisibleRow[]): number | undefined {
  let ahead: number | undefined;
  for (const row of visible) {
    if (!Number.isFinite(row.request.start)) continue;
    const bound = row.createdAt - row.request.start;
    if (ahead === undefined || bound < ahead) ahead = bound;
  }
  return ahead;
}

/**
 * How far the service's clock is ahead of ours at least (ms), from rows of our requests: a row's
 * createdAt came no later than the longest window after its request ended (whether createdAt is its
 * request's arrival or the moment the intake took it in).
 */
export function serviceAheadAtLeast(visible: readonly VisibleRow[], windowMs = INTAKE_LONGEST_MS): number | undefined {
  let ahead: number | undefined;
  for (const row of visible) {
    const bound = row.createdAt - row.request.end - windowMs;
    if (ahead === undefined || bound > ahead) ahead = bound;
  }
  return ahead;
}

import { setTimeout as sleep } from 'node:timers/promises';
import { INTAKE_MAX_MS, type Row } from '../../service/index.js';
import type { KeyLookups } from './key-lookups.js';

// When may a key sent to the webhook be declared missing from the table? docs/service-api.md 4.7 rule 4:
// rows appear about 5 s after the last request to the webhook (anyone's), and up to about 30 s while
// requests keep arriving. The intake takes in what it holds at once, in the order requests came, and
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

/** The intake's times as this run waits them: the service's, divided by TDS_RATE_SCALE (pushTimings, push-job.ts). */
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

/** A request of ours whose rows are looked for, by the keys it carried. */
export interface Watched {
  request: SentRequest;
  keys: readonly string[];
}

export interface WatchOptions {
  lookups: Pick<KeyLookups, 'rowCount' | 'reconcile' | 'newestCreatedAt'>;
  use: 'reconcile' | 'check';
  intake: IntakeTiming;
  signal: AbortSignal;
  /** when this run's last request ended: without other traffic, rows show a quiet period after it */
  lastRequestAt: number;
  /** rows of our requests seen so far (kept across watches: they bound the service's clock); appended to */
  visible: VisibleRow[];
  /** told each lookup's plan and how many keys it looks for */
  onLookup?(plan: string, keys: number): void;
}

/** What became of a watched request. */
export interface Watch {
  /** its keys that the table shows */
  found: Set<string>;
  /** why the others are missing; undefined when every key was found */
  proof?: MissingProof;
}

/**
 * Waits until `deadline` by this clock (Date.now(), as the windows are counted): a timer can wake a little
 * early by it (Node counts from its loop's time, which lags on a busy loop), and a window's end decides
 * what is missing. Rejects with the signal's reason.
 */
export async function sleepUntil(deadline: number, signal: AbortSignal): Promise<void> {
  while (Date.now() < deadline) {
    await sleep(deadline - Date.now(), undefined, { signal }).catch(() => {
      throw signal.reason;
    });
  }
}

interface State {
  watched: Watched;
  found: Set<string>;
  /** from when on a lookup decides it (the window's end, or when other proof was seen), and by what proof */
  provenAt: number;
  proof: MissingProof;
  done: boolean;
}

/**
 * Looks for the rows of `targets` until each is decided: every key found, or the others provably
 * missing (intake-window.ts), decided only by a lookup that began after the proof was seen. The first
 * lookup comes a quiet period after the last request; later ones when the table's rowCount moves (at
 * most one a quiet period), at the end of a request's window, or at once when a proof awaits its
 * lookup. `witnesses` are later requests of ours, looked for only as proof.
 */
export async function watchIntake(targets: readonly Watched[], witnesses: readonly Watched[], options: WatchOptions): Promise<Watch[]> {
  const { windowMs, quietMs, pollMs } = options.intake;
  const pause = (ms: number): Promise<void> => sleepUntil(Date.now() + ms, options.signal);
  const states: State[] = targets.map((watched) => ({
    watched,
    found: new Set(),
    provenAt: watched.request.end + windowMs,
    proof: 'window',
    done: watched.keys.length === 0,
  }));
  const open = (): State[] => states.filter((state) => !state.done);
  const unseen = new Set(witnesses);
  const { visible } = options;

  if (open().length > 0) {
    await sleepUntil(Math.min(options.lastRequestAt + quietMs, ...open().map((state) => state.provenAt)), options.signal);
  }
  while (open().length > 0) {
    const startedAt = Date.now();
    const count = await options.lookups.rowCount();
    const keys = [...new Set([...open().flatMap(missingKeys), ...[...unseen].flatMap((witness) => witness.keys)])];
    const { plan, lookup } = await options.lookups.reconcile(keys, options.use, count);
    options.onLookup?.(plan.text, keys.length);
    takeIn(await lookup.find(keys), { open: open(), unseen, visible, startedAt });
    if (open().length === 0) break;

    const newestCreatedAt = serviceAheadAtMost(visible) === undefined ? undefined : await options.lookups.newestCreatedAt(options.use);
    noteProofs(open(), { now: Date.now(), windowMs, visible, ...(newestCreatedAt !== undefined ? { newestCreatedAt } : {}) });
    await untilNextLookup(Math.min(...open().map((state) => state.provenAt)), { count, startedAt, quietMs, pollMs, options, pause });
  }
  return states.map((state) => ({
    found: state.found,
    ...(state.found.size < state.watched.keys.length ? { proof: state.proof } : {}),
  }));
}

/** Keys a lookup (begun at `startedAt`) found: targets decided when all found or proven before it; witnesses seen. */
function takeIn(
  rows: ReadonlyMap<string, Row>,
  at: { open: State[]; unseen: Set<Watched>; visible: VisibleRow[]; startedAt: number },
): void {
  for (const state of at.open) {
    for (const key of state.watched.keys) {
      const row = rows.get(key);
      if (!row) continue;
      if (state.found.size === 0) at.visible.push({ request: state.watched.request, createdAt: Date.parse(row.createdAt) });
      state.found.add(key);
    }
    if (state.found.size === state.watched.keys.length || state.provenAt <= at.startedAt) state.done = true;
  }
  for (const witness of at.unseen) {
    const row = witness.keys.map((key) => rows.get(key)).find((found) => found !== undefined);
    if (row) {
      at.visible.push({ request: witness.request, createdAt: Date.parse(row.createdAt) });
      at.unseen.delete(witness);
    }
  }
}

/** What was seen by `evidence.now` proves some rows would show: the next lookup decides them. */
function noteProofs(open: State[], evidence: Omit<IntakeEvidence, 'ownRowVisible'>): void {
  for (const state of open) {
    const proof = missingProof(state.watched.request, { ...evidence, ownRowVisible: state.found.size > 0 });
    if (proof && proof !== 'window' && evidence.now < state.provenAt) Object.assign(state, { provenAt: evidence.now, proof });
  }
}

function missingKeys(state: State): string[] {
  return state.watched.keys.filter((key) => !state.found.has(key));
}

/** Polls rowCount until it moved (and a quiet period passed since the last lookup) or `deadline` comes. */
async function untilNextLookup(
  deadline: number,
  at: { count: number; startedAt: number; quietMs: number; pollMs: number; options: WatchOptions; pause(ms: number): Promise<void> },
): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (now >= deadline) return;
    await at.pause(Math.min(deadline, now + at.pollMs) - now);
    if (Date.now() >= deadline) return;
    if ((await at.options.lookups.rowCount()) !== at.count && Date.now() >= at.startedAt + at.quietMs) return;
  }
}

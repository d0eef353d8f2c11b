// The emulator's options and their defaults, the seeds it offers, and what a running emulator gives back;
// with the parsers of its specs (churn, faults, latency), the emulator's start-up surface: what `tds
// emulator`'s definition reads, apart from the emulator itself so that the command tree loads it cheaply.

import type { LatencySpec } from './http/latency.js';

export { ChurnSpecError, parseChurnRates } from './churn/churn-rates.js';
export { FAULT_KINDS, FaultSpecError, parseFaultSpec } from './faults/fault-spec.js';
export { LatencySpecError, parseLatency, type LatencySpec } from './http/latency.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_INGEST_DELAY_MS = 5_000;
export const DEFAULT_ACTION_DELAY_MS = 3_000;

export const SEED_NAMES = ['demo', 'empty'] as const;
export type SeedName = (typeof SEED_NAMES)[number];

/**
 * What the seed's action cells that are not final do: `live` (default) they run on like new ones, a step every
 * action delay; `pending` they stay as seeded (for tests that need every status in the demo data).
 */
export const SEEDED_ACTIONS = ['live', 'pending'] as const;
export type SeededActions = (typeof SEEDED_ACTIONS)[number];

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default 'demo'. */
  seed?: SeedName;
  /** Load state from this JSON file if it exists; save to it on close(). */
  dataFile?: string;
  /** Adds workspace "Bench" with table "Generated" of this many rows. */
  rows?: number;
  /** The first organization's subscription is paused: 402 on its key endpoints. */
  paused?: boolean;
  /** Default true; false disables every rate limit. */
  rateLimits?: boolean;
  /**
   * Default 1; X makes rate-limit windows and the webhook intake X times shorter (retry-after stays in
   * service seconds), as TDS_RATE_SCALE X makes the client's waits for them: give both the same scale.
   */
  rateScale?: number;
  /**
   * Quiet delay of webhook intake in service ms (default 5000; divided by rateScale); rows show at most
   * 6 x this after the first one held.
   */
  ingestDelayMs?: number;
  /** Submissions a webhook takes in its lifetime; past them it answers success and drops the objects (default: no limit, as the spec). */
  webhookBudget?: number;
  /** Rows a table holds; past them a webhook answers success and drops the objects (default: no limit, as the spec). */
  tableCapacity?: number;
  /** Fault spec for key endpoints (see faults.ts). */
  readFaults?: string;
  /** Fault spec for webhook endpoints. */
  webhookFaults?: string;
  /** Seed of the fault draws, of action outcomes and of churn, default 1. */
  faultSeed?: number;
  /** The seed's action cells that are not final: 'live' (default) run on like new ones; 'pending' stay as seeded. */
  seededActions?: SeededActions;
  /** Time between two steps of an action cell (queued, running, final), in ms; default 3000; 0 = at once. */
  actionDelayMs?: number;
  /** Churn spec ("add:5/s,update:2/s,delete:0.1/s", optionally "table=NAME"): rows change over time. */
  churn?: string;
  /**
   * In-process only: 'timer' (default) churns as time passes; 'manual' churns only when told
   * (RunningEmulator.churnFor), so a history that churns replays the same draws.
   */
  churnTicks?: 'timer' | 'manual';
  /** Admin routes under /_emulator answer even when the emulator does not listen on a loopback address. */
  admin?: boolean;
  /** Round trip added to every request of the service (--latency MS[,JITTER]); see NetworkDelay. */
  latency?: LatencySpec;
  /** One line per request: method, redacted path, status, ms. */
  log?: (line: string) => void;
  /**
   * In-process only: told each request of the service (method, redacted path) as it arrives, before its
   * latency, faults and limits; the request is handled once the promise returned resolves (a test's barrier).
   */
  onArrival?: (request: { method: string; path: string }) => Promise<void> | void;
  /** Clock (ms) for date presets and timestamps, before the admin clock offset; default Date.now. */
  now?: () => number;
  /**
   * In-process only: the clock (ms) of the rate limits' windows; default performance.now. A test that
   * moves it itself decides which requests share a window, however slow the machine.
   */
  rateLimitNow?: () => number;
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** The first organization's key. */
  apiKey: string;
  /** Organization name -> key. */
  apiKeys: Record<string, string>;
  /** tableId -> full webhook URL, for every webhook-fed table (kept current as admin routes create tables). */
  webhooks: Record<string, string>;
  /** Every webhook-fed table now, by workspace and name, with its webhook URL (for a person: the terminal's ready message). */
  webhookTables(): Array<{ workspace: string; table: string; url: string }>;
  /** Every request, in arrival order (the emulator-only /_emulator routes excepted). */
  requestLog: RequestLogEntry[];
  /** Makes every webhook row the intake holds visible now. */
  flushIntake(): void;
  /** Makes at once the changes churn makes in `ms` at its rates (nothing without a churn spec). */
  churnFor(ms: number): void;
  /** Stops; saves to dataFile when given. */
  close(): Promise<void>;
}

export interface RequestLogEntry {
  /** ms timestamp at arrival (the real clock: the admin clock offset does not move it); with --latency, before the way there */
  at: number;
  method: string;
  /** path + query as received, with secrets redacted */
  path: string;
  /** 0 when no response was sent (reset, stall, client gone) */
  status: number;
  /** until the answer left (with --latency: both ways included) */
  durationMs: number;
  bucket?: 'metadata' | 'rows' | 'badKey' | 'webhook';
  /** webhook: objects in the body */
  objects?: number;
  bodyBytes?: number;
  /** injected fault kind, if any */
  fault?: string;
}

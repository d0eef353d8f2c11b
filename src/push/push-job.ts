import type { ProxySettings, ApiClient, RetryPolicy } from '../http/index.js';
import type { WebhookTarget } from './deliver/webhook-target.js';
import type { KeyJob } from './key/keyed-push.js';
import type { RowsOutput } from './wait/write-rows.js';
import type { ReadOptions } from './input/read-input.js';
import type { BatchLimits } from './plan/batch.js';
import type { UncertainPolicy } from './plan/resume-plan.js';
import { INTAKE_QUIET_MS, RATE_LIMITS } from '../service/index.js';
import { INTAKE_LONGEST_MS, type IntakeTiming } from './key/intake-window.js';

// Everything `tds push` was asked to do, checked and built once by the command; each stage of the
// pipeline takes only its part.

export interface InputOptions {
  /** a file path, or `-` for stdin */
  path: string;
  stdin: NodeJS.ReadableStream;
  read: ReadOptions;
  /** read once, validated as it streams (stdin, a pipe, a file without --validate-first) */
  streamed: boolean;
}

export interface JournalOptions {
  /** --journal FILE */
  path?: string;
  /**
   * without --journal, a file input: its journal is found or made in tds's data folder, one per input and
   * webhook (journal-folder.ts; none for stdin)
   */
  byDefault?: { input: string; dataDir: string };
  resume: boolean;
  /** uncertain batches of an earlier run: left alone, sent again (--resend-uncertain) or confirmed (--accept-uncertain) */
  uncertain: UncertainPolicy;
  /**
   * --webhook NEW: the batches go to NEW, and the journal stays the one of this webhook (the one named
   * first), so a push that spent one webhook's budget carries on into another of the same table.
   */
  webhook?: { displayUrl: string; fingerprint: string };
}

export interface DeliveryOptions {
  target: WebhookTarget;
  /** --concurrency: the user's ceiling on requests in flight (without it, the in-flight rule alone decides: in-flight.ts) */
  concurrency?: number | undefined;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY */
  proxy?: ProxySettings | undefined;
  /** requests a second */
  rate: number;
  timeoutMs: number;
  maxRetries: number;
  /** TDS_RATE_SCALE: run-push.ts works out every stage's times from it once (pushTimings, below) */
  rateScale: number;
  /** the webhook's ledger (push/ledger): tds's data folder, and the budget of submissions (undefined: off) */
  ledger?: { dir: string; budget?: number | undefined; capacity?: number | undefined };
}

export interface WaitSpec {
  /** the table the webhook feeds, by ID or exact name */
  table: string;
  timeoutMs: number;
  client: ApiClient;
  /** `settled` (with --key): until the pushed rows' action cells are done; -o writes them */
  settled?: { output?: RowsOutput };
}

export interface ReportOptions {
  /** the summary as JSON on stdout instead of text on stderr */
  json: boolean;
  /** a progress line on stderr when it is a terminal (off with --verbose, whose lines would break it) */
  progress: boolean;
  rejectsPath?: string;
}

export interface PushJob {
  input: InputOptions;
  limits: BatchLimits;
  journal: JournalOptions;
  /** undefined only for a dry run without a webhook */
  delivery?: DeliveryOptions;
  wait?: WaitSpec;
  /** --key FIELD[=COLUMN] */
  key?: KeyJob;
  report: ReportOptions;
  dryRun: boolean;
}

/** `stdin` or the file's path, as messages name the input. */
export function sourceName(input: Pick<InputOptions, 'path'>): string {
  return input.path === '-' ? 'stdin' : input.path;
}

/** --wait: rows show up asynchronously; reading the table every 2 s stays far inside the read limits. */
const WAIT_POLL_MS = 2_000;
/** --key: while rows of ours are awaited, the table's rowCount is read every second. */
const INTAKE_POLL_MS = 1_000;

/** The times of a push, as each stage uses them. */
export interface PushTimings {
  /** --max-retries, and the waits of retry-after and backoff (each stage says whether its request may be repeated) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  /** the webhook's rate-limit window */
  webhookWindowMs: number;
  /** --key: the intake's windows and how often rows are looked for */
  intake: IntakeTiming;
  /** --wait: how often the table is read */
  waitPollMs: number;
}

/**
 * The service's windows and waits divided by TDS_RATE_SCALE (tests and the demo run the client and
 * the emulator faster alike), worked out once for the whole push: no stage knows the scale.
 */
export function pushTimings(rateScale: number, maxRetries: number): PushTimings {
  return {
    retry: { maxRetries, rateScale },
    webhookWindowMs: RATE_LIMITS.webhook.perMs / rateScale,
    intake: { windowMs: INTAKE_LONGEST_MS / rateScale, quietMs: INTAKE_QUIET_MS / rateScale, pollMs: INTAKE_POLL_MS / rateScale },
    waitPollMs: WAIT_POLL_MS / rateScale,
  };
}

import type { ProxySettings } from '../http/proxy.js';
import type { ApiClient } from '../http/client.js';
import type { WebhookTarget } from './deliver/webhook-target.js';
import type { KeyJob } from './key/keyed-push.js';
import type { RowsOutput } from './wait/write-rows.js';
import type { ReadOptions } from './input/read-input.js';
import type { BatchLimits } from './plan/batch.js';
import type { UncertainPolicy } from './plan/resume-plan.js';

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
  /** without --journal, a file input: its journal is beside it, one per webhook (none for stdin) */
  beside?: string;
  resume: boolean;
  /** uncertain batches of an earlier run: left alone, sent again (--resend-uncertain) or confirmed (--accept-uncertain) */
  uncertain: UncertainPolicy;
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
  /** TDS_RATE_SCALE: run-push.ts works out every stage's times from it once (push-timings.ts) */
  rateScale: number;
}

export interface WaitOptions {
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
  wait?: WaitOptions;
  /** --key FIELD[=COLUMN] */
  key?: KeyJob;
  report: ReportOptions;
  dryRun: boolean;
}

/** `stdin` or the file's path, as messages name the input. */
export function sourceName(input: Pick<InputOptions, 'path'>): string {
  return input.path === '-' ? 'stdin' : input.path;
}

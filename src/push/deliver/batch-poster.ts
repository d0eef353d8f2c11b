import type { AttemptReport } from '../../http/retry.js';
import type { SentRequest } from '../key/intake-window.js';
import type { Batch } from '../plan/batch.js';
import type { BatchJournal } from './batch-journal.js';
import { classifyPost, type PostOutcome } from './classify.js';
import { postLogLine } from './post-log.js';
import type { WireResult } from './webhook-client.js';

export interface PosterOptions {
  post(body: Buffer): Promise<WireResult>;
  journal: BatchJournal;
  /** how the webhook is shown in log lines */
  shown: string;
  /** keeps the webhook URL out of service messages before they are journaled, logged or shown */
  redact(text: string): string;
  log?: (line: string) => void;
}

/** One POST of a batch, when it left and ended, and what it means. */
export interface Posted {
  wire: WireResult;
  outcome: PostOutcome;
  sent: SentRequest;
}

/** Posts batches to the webhook and keeps count of the requests on the wire. */
export class BatchPoster {
  /** requests on the wire now (for the progress line) */
  inFlight = 0;
  /** when this run's last request to the webhook ended (0: none) */
  lastRequestAt = 0;

  constructor(private readonly options: PosterOptions) {}

  /** Journals the batch as being sent (fsynced), then sends it: the journal never misses a request that left. */
  async post(batch: Batch): Promise<Posted> {
    await this.options.journal(batch, 'sending');
    this.inFlight += 1;
    const start = Date.now();
    let wire: WireResult;
    try {
      wire = await this.options.post(batch.body);
    } finally {
      this.inFlight -= 1;
      this.lastRequestAt = Date.now();
    }
    const outcome = classifyPost(wire);
    if ('detail' in outcome) outcome.detail = this.options.redact(outcome.detail);
    return { wire, outcome, sent: { start, end: this.lastRequestAt } };
  }

  /** Logs an attempt; one that took nothing in and will be tried again (or given up) is journaled as unsent. */
  async attempted(batch: Batch, report: AttemptReport<Posted>): Promise<void> {
    const { wire, outcome } = report.result;
    this.options.log?.(this.options.redact(postLogLine(this.options.shown, { batch, wire, outcome, decision: report.decision })));
    if (outcome.kind === 'retry') await this.options.journal(batch, 'unsent', { status: outcome.status, reason: outcome.detail });
  }
}

// push/: `tds push`. Its surface (this file): runPush and checkWebhookExists (run-push.ts, loaded when
// called: nothing of the pipeline loads with the program), the PushJob a command builds (push-job.ts),
// and what a command checks before a push: the arguments and webhook target, the input's format,
// delimiter and encoding, batch selections, the --key mapping. The folders are the pipeline's stages:
// input/ → journal/ → plan/ → key/ → deliver/ → report/, wait/. options.ts: what the command's definition
// reads at start-up (the flags' formats, encodings and defaults), without the pipeline.

import type { Context } from '../core/index.js';
import type { DeliveryOptions, PushJob } from './push-job.js';

export type { DeliveryOptions, PushJob, WaitSpec } from './push-job.js';
export { INPUT_FORMATS, JOURNAL_KEEP_DAYS, MAX_IN_FLIGHT, parseInputEncoding, type InputEncoding, type InputFormat } from './options.js';
export { pushArguments, webhookTarget, type WebhookTarget } from './deliver/webhook-target.js';
export { csvDelimiter, inputFormatOf } from './input/input-record.js';
export type { ReadOptions } from './input/read-input.js';
export { encodingNote } from './input/utf8-text.js';
export type { KeyJob } from './key/keyed-push.js';
export { dataDir } from './ledger/index.js';
export { parseKeyMapping, type KeyMapping } from './key/record-key.js';
export { overlaps, parseBatchSelection, type UncertainPolicy } from './plan/resume-plan.js';
export type { PushSummary } from './report/summary.js';
export type { RowsOutput } from './wait/write-rows.js';

/** `tds push`: see run-push.ts. */
export async function runPush(ctx: Context, job: PushJob): Promise<void> {
  return (await import('./run-push.js')).runPush(ctx, job);
}

/** `tds push --check`: see run-push.ts. */
export async function checkWebhookExists(ctx: Context, delivery: DeliveryOptions, options: { json: boolean }): Promise<void> {
  return (await import('./run-push.js')).checkWebhookExists(ctx, delivery, options);
}

// push/deliver/: sending batches to the webhook. Surface: BatchSender (send-batches.ts) with its SendEvent
// and StopReason (classify.ts), the batches kept in flight (in-flight.ts), WebhookClient (webhook-client.ts),
// webhookTarget and pushArguments (webhook-target.ts) and checkWebhook (check-webhook.ts).

export { checkWebhook } from './check-webhook.js';
export type { SendEvent, StopReason } from './classify.js';
export { FlightControl, MAX_IN_FLIGHT } from './in-flight.js';
export { BatchSender, type SubmissionBudget } from './send-batches.js';
export { WebhookClient, webhookLimiter, type WireResult } from './webhook-client.js';
export { pushArguments, webhookTarget, type WebhookTarget } from './webhook-target.js';

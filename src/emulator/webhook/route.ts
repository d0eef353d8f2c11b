import type { IncomingMessage } from 'node:http';
import { WEBHOOK_MAX_BODY_BYTES, type WebhookSuccessBody } from '../../service/index.js';
import { ApiProblem, badRequest, webhookErrorBody, isJsonContentType, readBody, sendJson } from '../http/http-io.js';
import { parseWebhookBody, type Intake } from './intake.js';
import type { EmulatorState } from '../store/state.js';
import type { RequestLogEntry } from '../options.js';
import type { IntakeLimits } from './limits.js';
import type { Socket } from 'node:net';
import { isAfterAccept } from '../faults/fault-spec.js';
import { sendFault } from '../faults/faults.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { Route, RouteCall } from '../http/route-table.js';

export interface WebhookDeps {
  state: EmulatorState;
  intake: Intake;
  limits: IntakeLimits;
}

/** POST and HEAD on a webhook URL. Returns the success body (undefined for HEAD); refusals are thrown. */
export async function handleWebhook(
  deps: WebhookDeps,
  webhookId: string,
  req: IncomingMessage,
  entry?: RequestLogEntry,
): Promise<WebhookSuccessBody | undefined> {
  const table = deps.state.tableByWebhookId(webhookId);
  if (!table) throw new ApiProblem(404, 'Webhook not found');
  if (req.method === 'HEAD') return undefined;
  if (!isJsonContentType(req)) throw badRequest('Content-Type must be application/json');
  const read = await readBody(req, WEBHOOK_MAX_BODY_BYTES);
  if ('tooLarge' in read) {
    throw new ApiProblem(
      413,
      `request body is over ${WEBHOOK_MAX_BODY_BYTES} bytes (1 MB); send fewer objects per request`,
      read.drained ? {} : { connection: 'close' },
    );
  }
  if (entry) entry.bodyBytes = read.body.length;
  const objects = parseWebhookBody(read.body);
  if (entry) entry.objects = objects.total;
  // past the webhook's budget or the table's capacity (off by default) the answer is the same, and the objects are dropped
  const kept = deps.limits.admit(webhookId, table, objects.rows.length);
  if (kept > 0) deps.intake.add(table, read.body, kept);
  return { success: true, message: `${objects.rows.length} records are being processed` };
}

/**
 * The webhook: a fault that comes before storing (429, 500pre, …) replaces the response; one that comes after
 * (500, 502, 503, reset, stall) lets the request be handled, objects accepted, and then replaces the answer.
 */
export async function webhookCall(route: Route, call: RouteCall, stalled: Set<Socket>): Promise<void> {
  const { deps, req, res, entry } = call;
  if (entry) entry.bucket = 'webhook';
  const fault = deps.webhookFaults.next();
  if (fault && entry) entry.fault = fault;
  if (fault && !isAfterAccept(fault)) return sendFault(fault, 'webhook', { req, res, stalled });
  let answer: () => void;
  try {
    enforceLimit(deps.limiter, 'webhook', req.socket.remoteAddress ?? '');
    const reply = await route.handle(call);
    answer = () => (reply.body === undefined ? res.writeHead(reply.status).end() : sendJson(res, reply.status, reply.body));
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    answer = () => sendJson(res, error.status, webhookErrorBody(error.status, error.message), error.headers);
  }
  if (fault) sendFault(fault, 'webhook', { req, res, stalled });
  else answer();
}

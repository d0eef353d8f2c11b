// emulator/webhook/: the webhook. Surface: handleWebhook and webhookCall (this file: the call, its body and its
// route) and Intake (intake.ts: posted objects become rows, visible after the intake window).

import type { IncomingMessage } from 'node:http';
import { WEBHOOK_MAX_BODY_BYTES, type WebhookSuccessBody, WEBHOOK_MAX_OBJECTS } from '../../service/index.js';
import { ApiProblem, badRequest, webhookErrorBody, isJsonContentType, readBody, sendJson } from '../http/http-io.js';
import type { Intake } from './intake.js';
import type { EmulatorState } from '../store/state.js';
import type { RequestLogEntry } from '../options.js';
import type { Socket } from 'node:net';
import { isAfterAccept, sendFault } from '../faults/faults.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { Route, RouteCall } from '../http/route-table.js';

export interface WebhookDeps {
  state: EmulatorState;
  intake: Intake;
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
    throw new ApiProblem(413, `request body is over ${WEBHOOK_MAX_BODY_BYTES} bytes (1 MB); send fewer objects per request`, {
      connection: 'close',
    });
  }
  if (entry) entry.bodyBytes = read.body.length;
  const objects = parseWebhookBody(read.body);
  if (entry) entry.objects = objects.total;
  deps.intake.add(table, objects.rows);
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

export interface WebhookObjects {
  /** Every object in the body, empty ones included. */
  total: number;
  /** The objects that become rows. */
  rows: Array<Record<string, unknown>>;
}

/**
 * Not a rule of the service's spec: rows are served, searched and saved as JSON text, which JavaScript cannot
 * write past a few thousand levels, so a deeper body would make every later read of its table fail. The emulator
 * refuses it up front, as any real JSON store refuses some depth.
 */
export const WEBHOOK_MAX_NESTING = 1000;

/** The three body forms: one object, an array of objects, or `{data: [...]}`. Empty objects are skipped. */
export function parseWebhookBody(body: Buffer): WebhookObjects {
  if (body.length === 0) throw badRequest('body is empty: send a JSON object, an array of objects, or {"data": [...]}');
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
  if (nesting(text) > WEBHOOK_MAX_NESTING) throw badRequest(`body nests objects and arrays more than ${WEBHOOK_MAX_NESTING} levels deep`);
  const list = Array.isArray(parsed)
    ? parsed
    : isObject(parsed) && Array.isArray(parsed.data)
      ? parsed.data
      : isObject(parsed)
        ? [parsed]
        : undefined;
  if (!list) throw badRequest('body must be a JSON object, an array of objects, or {"data": [...]}');
  if (list.length > WEBHOOK_MAX_OBJECTS) {
    throw badRequest(`too many objects (${list.length}): a maximum of ${WEBHOOK_MAX_OBJECTS} per request`);
  }
  const bad = list.findIndex((item) => !isObject(item));
  if (bad >= 0) throw badRequest(`entry ${bad} is not an object: each entry becomes one row and must be a JSON object`);
  const rows = (list as Array<Record<string, unknown>>).filter((item) => Object.keys(item).length > 0);
  if (rows.length === 0) throw badRequest('nothing to add: every object in the body is empty');
  return { total: list.length, rows };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The deepest nesting of `[` and `{` in valid JSON text, strings skipped; a loop, so any depth is safe to measure. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if (char === '}' || char === ']') depth -= 1;
  }
  return deepest;
}

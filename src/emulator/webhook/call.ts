import type { Socket } from 'node:net';
import { ApiProblem, webhookErrorBody } from '../http/errors.js';
import { sendFault } from '../faults/fault-response.js';
import { isAfterAccept } from '../faults/faults.js';
import { sendJson } from '../http/http-io.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { Route, RouteCall } from '../http/server-deps.js';

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

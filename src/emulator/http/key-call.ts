import type { Socket } from 'node:net';
import { authenticate } from './auth.js';
import { ApiProblem } from './errors.js';
import { sendFault } from '../faults/fault-response.js';
import { sendJson } from './http-io.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { Route, RouteCall } from './server-deps.js';

/**
 * A key endpoint: an injected fault replaces the response before anything else; then the bearer key, the
 * paused subscription and the rate limit, in that order; then the route.
 */
export async function keyCall(route: Route, call: RouteCall, stalled: Set<Socket>): Promise<void> {
  const { deps, req, res, entry, query } = call;
  const fault = deps.readFaults.next();
  if (fault) {
    if (entry) entry.fault = fault;
    return sendFault(fault, 'key', { req, res, stalled });
  }
  const auth = authenticate(req, query, deps.state);
  if (!auth.ok) {
    if (entry) entry.bucket = 'badKey';
    enforceLimit(deps.limiter, 'badKey', `${req.socket.remoteAddress}\n${auth.presented}`);
    throw new ApiProblem(401, auth.message);
  }
  const bucket = route.bucket ?? 'metadata';
  if (entry) entry.bucket = bucket;
  if (auth.org.paused) throw new ApiProblem(402, 'The subscription is paused: reading data needs an active subscription');
  enforceLimit(deps.limiter, bucket, auth.org.id);
  const reply = await route.handle({ ...call, org: auth.org });
  sendJson(res, reply.status, reply.body);
}

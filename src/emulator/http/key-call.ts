import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { sendFault } from '../faults/fault-response.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { OrgRec } from '../store/model.js';
import type { EmulatorState } from '../store/state.js';
import { ApiProblem } from './errors.js';
import { sendJson } from './http-io.js';
import { KEY_PARAM_PATTERN } from './secrets.js';
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

export type AuthResult =
  { ok: true; org: OrgRec } | { ok: false; message: string; /** what the bad-key rate limit counts per IP */ presented: string };

/** Bearer header only. A key in the query string is refused even when the key is right. */
export function authenticate(req: IncomingMessage, params: URLSearchParams, state: EmulatorState): AuthResult {
  for (const [name, value] of params) {
    // `?KEY` (the key as a parameter name) is a key in the query string too.
    const keyAsName = state.orgByKey(name) !== undefined;
    if (keyAsName || KEY_PARAM_PATTERN.test(name) || state.orgByKey(value)) {
      return {
        ok: false,
        message: 'API key in the query string is not accepted: send it in the header "Authorization: Bearer <API_KEY>"',
        presented: keyAsName ? name : value,
      };
    }
  }
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') {
    return { ok: false, message: 'API key missing: send the header "Authorization: Bearer <API_KEY>"', presented: '' };
  }
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!match) {
    return { ok: false, message: 'Authorization header must be "Bearer <API_KEY>"', presented: header };
  }
  const org = state.orgByKey(match[1]!);
  if (!org) return { ok: false, message: 'API key is not valid', presented: match[1]! };
  return { ok: true, org };
}

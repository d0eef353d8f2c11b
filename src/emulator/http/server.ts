import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ADMIN_ROUTES, EMULATOR_ROUTES, SERVICE_ROUTES } from './routes.js';
import { ApiProblem, keyErrorBody, webhookErrorBody, sendJson } from './http-io.js';
import { RouteTable, WEBHOOK_PATH_PREFIX, type Route, type RouteCall, type ServerDeps } from './route-table.js';
import type { RequestLogEntry } from '../options.js';
import { webhookCall } from '../webhook/route.js';
import { sendFault } from '../faults/faults.js';
import { enforceLimit } from '../faults/rate-limit.js';
import type { OrgRec } from '../store/model.js';
import type { EmulatorState } from '../store/state.js';

const REQUEST_LOG_MAX = 100_000;
const SERVICE_TABLE = new RouteTable(SERVICE_ROUTES);

/** A request, its response, and its request line taken apart. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
}

export interface EmulatorServer {
  server: Server;
  /** Destroys sockets held by `stall` faults (they would keep close() waiting). */
  releaseStalled(): void;
}

/** The HTTP server: /_emulator routes (not logged), then the service's routes (logged, with faults and limits). */
export function createEmulatorServer(deps: ServerDeps): EmulatorServer {
  const stalled = new Set<Socket>();
  const emulatorTable = new RouteTable(deps.admin ? [...EMULATOR_ROUTES, ...ADMIN_ROUTES] : EMULATOR_ROUTES);
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    deps.intake.showDue();
    const exchange: Exchange = { req, res, method: req.method ?? 'GET', ...splitUrl(req.url ?? '/') };
    const hit = exchange.path.startsWith('/_emulator/') ? emulatorTable.match(exchange.method, exchange.path) : undefined;
    const done = hit ? emulatorRoute(deps, hit, exchange) : serviceRoute(deps, stalled, exchange);
    done.catch(() => res.destroy());
  });
  return {
    server,
    releaseStalled: () => {
      for (const socket of stalled) socket.destroy();
      stalled.clear();
    },
  };
}

function splitUrl(rawUrl: string): { path: string; query: URLSearchParams } {
  const queryAt = rawUrl.indexOf('?');
  return {
    path: queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt),
    query: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)),
  };
}

/** An emulator-only route: no key, not in the request log, errors in the key endpoints' shape. */
async function emulatorRoute(
  deps: ServerDeps,
  hit: NonNullable<ReturnType<RouteTable<Route>['match']>>,
  { req, res, query }: Exchange,
): Promise<void> {
  if ('allow' in hit) return sendJson(res, 405, keyErrorBody(405, `Use ${hit.allow.join(', ')}`), { allow: hit.allow.join(', ') });
  try {
    const reply = await hit.route.handle({ deps, req, res, params: hit.params, query });
    sendJson(res, reply.status, reply.body);
  } catch (error) {
    sendFailure(res, 'key', error);
  }
}

/** A route of the service: logged; key routes and the webhook each with their faults, limits and error shape. */
async function serviceRoute(deps: ServerDeps, stalled: Set<Socket>, { req, res, path, query, method }: Exchange): Promise<void> {
  const entry = logEntry(deps, req, res, method);
  if (deps.hold && !(await deps.hold.pass(req))) return;
  const surface = path.startsWith(WEBHOOK_PATH_PREFIX) ? 'webhook' : 'key';
  try {
    await deps.onArrival?.({ method, path: entry.path });
    if (deps.delay) {
      deps.delay.holdAnswer(res);
      await deps.delay.arrive();
    }
    // the service's own clock, as its rows' times are (Node would send the real clock's)
    res.setHeader('date', new Date(deps.clock.now()).toUTCString());
    const hit = SERVICE_TABLE.match(method, path);
    if (!hit) throw new ApiProblem(404, `No route ${method} ${surface === 'webhook' ? 'on this webhook URL' : path}`);
    if ('allow' in hit) {
      throw new ApiProblem(405, `Method ${method} is not allowed here; use ${hit.allow.join(' or ')}`, { allow: hit.allow.join(', ') });
    }
    const call: RouteCall = { deps, req, res, params: hit.params, query, entry };
    if (hit.route.surface === 'webhook') await webhookCall(hit.route, call, stalled);
    else await keyCall(hit.route, call, stalled);
  } catch (error) {
    sendFailure(res, surface, error);
  }
}

function logEntry(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, method: string): RequestLogEntry {
  const started = performance.now();
  const entry: RequestLogEntry = {
    at: deps.clock.realNow(),
    method,
    path: redactUrl(req.url ?? '/', deps.secrets),
    status: 0,
    durationMs: 0,
  };
  deps.requestLog.push(entry);
  // A long-running emulator keeps only the recent log (tests read far fewer entries).
  if (deps.requestLog.length > REQUEST_LOG_MAX) deps.requestLog.splice(0, deps.requestLog.length - REQUEST_LOG_MAX / 2);
  res.once('close', () => {
    entry.status = res.writableFinished ? res.statusCode : 0;
    entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
    deps.log?.(`${entry.method} ${entry.path} ${entry.status || '-'} ${entry.durationMs}ms${entry.fault ? ` fault=${entry.fault}` : ''}`);
  });
  return entry;
}

/** A refusal in the shape of the surface it hit; any other error is the emulator's own failure, a 500. */
function sendFailure(res: ServerResponse, surface: 'key' | 'webhook', error: unknown): void {
  if (res.destroyed) return;
  if (res.headersSent) return void res.destroy();
  const problem =
    error instanceof ApiProblem
      ? error
      : new ApiProblem(500, `emulator failure: ${error instanceof Error ? error.message : String(error)}`);
  const body = surface === 'key' ? keyErrorBody(problem.status, problem.message) : webhookErrorBody(problem.status, problem.message);
  sendJson(res, problem.status, body, problem.headers);
}

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

// What must never show in the request log: API keys (in a header or, wrongly, in the query string) and webhook ids.

/** Query parameters that look like a credential: refused on key endpoints, redacted in the log. */
export const KEY_PARAM_PATTERN = /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|bearer|secret)$/i;

/** The path and query as received, with the webhook id, key-like parameters and any known secret replaced. */
export function redactUrl(rawUrl: string, secrets: ReadonlySet<string>): string {
  const queryAt = rawUrl.indexOf('?');
  let path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  if (path.startsWith(WEBHOOK_PATH_PREFIX)) path = `${WEBHOOK_PATH_PREFIX}***`;
  let out = path;
  if (queryAt >= 0) {
    const parts = rawUrl
      .slice(queryAt + 1)
      .split('&')
      .map((part) => {
        const equals = part.indexOf('=');
        const name = safeDecode(equals < 0 ? part : part.slice(0, equals));
        const value = equals < 0 ? '' : safeDecode(part.slice(equals + 1));
        if (secrets.has(name)) return '***';
        return KEY_PARAM_PATTERN.test(name) || secrets.has(value) ? `${part.slice(0, equals < 0 ? part.length : equals)}=***` : part;
      });
    out += `?${parts.join('&')}`;
  }
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('***');
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { RateLimitName } from '../spec/index.js';
import { authenticate } from './auth.js';
import { ApiProblem, keyErrorBody, webhookErrorBody } from './errors.js';
import type { FaultKind, FaultPlan } from './faults.js';
import { sendJson } from './http-io.js';
import type { Intake } from './intake.js';
import { rateLimitMessage, type RateLimiter } from './rate-limit.js';
import { listTables, listWorkspaces, queryPage, rowsPage, tableSchema, type ReadDeps } from './read-routes.js';
import { matchRoute, type RouteMatch } from './routes.js';
import { redactUrl, WEBHOOK_PATH_PREFIX } from './secrets.js';
import type { RequestLogEntry } from './types.js';
import { handleWebhook } from './webhook-route.js';

const REQUEST_LOG_MAX = 100_000;

export interface ServerDeps extends ReadDeps {
  limiter: RateLimiter;
  intake: Intake;
  readFaults: FaultPlan;
  webhookFaults: FaultPlan;
  requestLog: RequestLogEntry[];
  /** Keys and webhook ids: redacted from logged paths. */
  secrets: ReadonlySet<string>;
  log?: (line: string) => void;
}

type Surface = 'key' | 'webhook';

/** Faults that hit a webhook request only after its objects were accepted (rows may have been added). */
const AFTER_ACCEPT: readonly FaultKind[] = ['500', '502', '503', 'reset', 'stall'];

export interface EmulatorServer {
  server: Server;
  /** Destroys sockets held by `stall` faults (they would keep close() waiting). */
  releaseStalled(): void;
}

export function createEmulatorServer(deps: ServerDeps): EmulatorServer {
  const stalled = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch(() => res.destroy());
  });

  const applyFault = (kind: FaultKind, surface: Surface, req: IncomingMessage, res: ServerResponse): void => {
    const errorBody = surface === 'key' ? keyErrorBody : webhookErrorBody;
    switch (kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'stall':
        stalled.add(req.socket);
        req.socket.once('close', () => stalled.delete(req.socket));
        return;
      case '502':
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n');
        return;
      case '429':
      case '429bare':
        sendJson(res, 429, errorBody(429, 'Too many requests (injected fault)'), kind === '429' ? { 'retry-after': '1' } : {});
        return;
      default:
        sendJson(res, Number(kind), errorBody(Number(kind), `Service failure (injected fault ${kind})`));
    }
  };

  const sendProblem = (res: ServerResponse, surface: Surface, problem: ApiProblem): void => {
    const body = surface === 'key' ? keyErrorBody(problem.status, problem.message) : webhookErrorBody(problem.status, problem.message);
    sendJson(res, problem.status, body, problem.headers);
  };

  const handleKeyRoute = async (
    route: RouteMatch,
    req: IncomingMessage,
    res: ServerResponse,
    entry: RequestLogEntry,
    params: URLSearchParams,
  ) => {
    const fault = deps.readFaults.next();
    if (fault) {
      entry.fault = fault;
      return applyFault(fault, 'key', req, res);
    }
    const auth = authenticate(req, params, deps.state);
    if (!auth.ok) {
      entry.bucket = 'badKey';
      limit('badKey', `${req.socket.remoteAddress}\n${auth.presented}`);
      throw new ApiProblem(401, auth.message);
    }
    const bucket: RateLimitName = route.name === 'rows' || route.name === 'query' ? 'rows' : 'metadata';
    entry.bucket = bucket;
    if (auth.org.paused) throw new ApiProblem(402, 'The subscription is paused: reading data needs an active subscription');
    limit(bucket, auth.org.id);
    const id = route.id ?? '';
    const body =
      route.name === 'workspaces'
        ? listWorkspaces(deps, auth.org, params)
        : route.name === 'tables'
          ? listTables(deps, auth.org, params)
          : route.name === 'schema'
            ? tableSchema(deps, auth.org, id, params)
            : route.name === 'rows'
              ? rowsPage(deps, auth.org, id, params)
              : await queryPage(deps, auth.org, id, req, params);
    sendJson(res, 200, body);
  };

  const handleWebhookRoute = async (route: RouteMatch, req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry) => {
    entry.bucket = 'webhook';
    const fault = deps.webhookFaults.next();
    if (fault) entry.fault = fault;
    if (fault && !AFTER_ACCEPT.includes(fault)) return applyFault(fault, 'webhook', req, res);
    let outcome: () => void;
    try {
      limit('webhook', req.socket.remoteAddress ?? '');
      const body = await handleWebhook(deps, route.id ?? '', req, entry);
      outcome = () => (body === undefined ? res.writeHead(200).end() : sendJson(res, 200, body));
    } catch (error) {
      if (!(error instanceof ApiProblem)) throw error;
      outcome = () => sendProblem(res, 'webhook', error);
    }
    if (fault) applyFault(fault, 'webhook', req, res);
    else outcome();
  };

  const limit = (name: RateLimitName, key: string): void => {
    const retryAfter = deps.limiter.check(name, key);
    if (retryAfter !== undefined) throw new ApiProblem(429, rateLimitMessage(name), { 'retry-after': String(retryAfter) });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const params = new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1));
    const route = matchRoute(path);
    const method = req.method ?? 'GET';

    if (route?.name === 'emulatorRequests' || route?.name === 'emulatorFlush') {
      if (!route.methods.includes(method))
        return sendJson(res, 405, keyErrorBody(405, `Use ${route.methods.join(', ')}`), { allow: route.methods.join(', ') });
      if (route.name === 'emulatorFlush') deps.intake.flushAll();
      return sendJson(res, 200, route.name === 'emulatorFlush' ? { flushed: true } : deps.requestLog);
    }

    const entry: RequestLogEntry = { at: deps.now(), method, path: redactUrl(rawUrl, deps.secrets), status: 0, durationMs: 0 };
    deps.requestLog.push(entry);
    // A long-running emulator keeps only the recent log (tests read far fewer entries).
    if (deps.requestLog.length > REQUEST_LOG_MAX) deps.requestLog.splice(0, deps.requestLog.length - REQUEST_LOG_MAX / 2);
    res.once('close', () => {
      entry.status = res.writableFinished ? res.statusCode : 0;
      entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
      deps.log?.(`${entry.method} ${entry.path} ${entry.status || '-'} ${entry.durationMs}ms${entry.fault ? ` fault=${entry.fault}` : ''}`);
    });

    const surface: Surface = route?.name === 'webhook' || path.startsWith(WEBHOOK_PATH_PREFIX) ? 'webhook' : 'key';
    try {
      if (!route) throw new ApiProblem(404, `No route ${method} ${surface === 'webhook' ? 'on this webhook URL' : path}`);
      if (!route.methods.includes(method)) {
        throw new ApiProblem(405, `Method ${method} is not allowed here; use ${route.methods.join(' or ')}`, {
          allow: route.methods.join(', '),
        });
      }
      if (route.name === 'webhook') await handleWebhookRoute(route, req, res, entry);
      else await handleKeyRoute(route, req, res, entry, params);
    } catch (error) {
      if (res.destroyed) return;
      if (res.headersSent) return void res.destroy();
      // Any other error is the emulator's own failure: a 500 in the shape of the surface it hit.
      const problem =
        error instanceof ApiProblem
          ? error
          : new ApiProblem(500, `emulator failure: ${error instanceof Error ? error.message : String(error)}`);
      sendProblem(res, surface, problem);
    }
  }

  return {
    server,
    releaseStalled: () => {
      for (const socket of stalled) socket.destroy();
      stalled.clear();
    },
  };
}

// A route of the emulator: what it is called with (ServerDeps, RouteCall), what it answers (Reply), and the
// table that finds the route of a request (routes.ts lists them all); the webhook's path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorClock } from '../store/state.js';
import type { FaultPlan } from '../faults/faults.js';
import type { Intake } from '../webhook/intake.js';
import type { IntakeLimits } from '../webhook/limits.js';
import type { LiveRows } from '../store/live-rows.js';
import type { OrgRec } from '../store/model.js';
import type { RateLimitEnforcer } from '../faults/rate-limit.js';
import type { ReadDeps } from '../read/read-routes.js';
import type { RequestLogEntry } from '../options.js';
import type { NetworkDelay } from './latency.js';
import type { RequestHold } from './request-hold.js';

/** The webhook's path; the secret webhook id follows it (never shown in a log). */
export const WEBHOOK_PATH_PREFIX = '/v1/webhook/';

/** Everything the routes of a running emulator work with. */
export interface ServerDeps extends ReadDeps {
  limiter: RateLimitEnforcer;
  intake: Intake;
  /** --webhook-budget and --table-capacity, and what each webhook has taken */
  limits: IntakeLimits;
  live: LiveRows;
  clock: EmulatorClock;
  readFaults: FaultPlan;
  webhookFaults: FaultPlan;
  requestLog: RequestLogEntry[];
  /** Keys and webhook ids: redacted from logged paths (admin routes add the ids of tables they create). */
  secrets: Set<string>;
  /** tableId -> full webhook URL, kept current as admin routes create webhook tables. */
  webhooks: Record<string, string>;
  /** `http://host:port`, once the server listens. */
  origin: () => string;
  /** Whether the admin routes under /_emulator answer (loopback bind or --admin). */
  admin: boolean;
  /** --latency: every request of the service takes this round trip. */
  delay?: NetworkDelay;
  /** The simulator's hold on requests from the N-th on (admin/sim-hooks.ts). */
  hold?: RequestHold;
  log?: (line: string) => void;
  /** Told each request of the service as it arrives; it is handled once the promise returned resolves. */
  onArrival?: (request: ArrivedRequest) => Promise<void> | void;
}

/** A request of the service as it arrives (its path redacted, as in the request log). */
export interface ArrivedRequest {
  method: string;
  path: string;
}

export interface RouteCall {
  deps: ServerDeps;
  req: IncomingMessage;
  res: ServerResponse;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The request's log entry (service routes only: the /_emulator routes are not logged). */
  entry?: RequestLogEntry;
  /** Key routes: the organization the key opened. */
  org?: OrgRec;
}

export interface Reply {
  status: number;
  /** JSON body; none for HEAD. */
  body?: unknown;
}

export interface Route extends RoutePattern {
  /** key: the service's key endpoints; webhook: its webhook; emulator: /_emulator (no key, not logged). */
  surface: 'key' | 'webhook' | 'emulator';
  /** Key routes: the rate limit that counts them. */
  bucket?: 'metadata' | 'rows';
  handle(call: RouteCall): Reply | Promise<Reply>;
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });

/** One route: a method and a path pattern whose `:name` segments are parameters (any segment, even empty). */
export interface RoutePattern {
  method: string;
  path: string;
}

export type RouteLookup<R extends RoutePattern> =
  | { route: R; params: Record<string, string> }
  /** The path exists, not with this method: the methods it takes. */
  | { allow: string[] }
  | undefined;

/** Finds the route of a request by method and path (segments percent-decoded; a bad escape matches nothing). */
export class RouteTable<R extends RoutePattern> {
  private readonly compiled: Array<{ route: R; segments: string[] }>;

  constructor(readonly routes: readonly R[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  match(method: string, path: string): RouteLookup<R> {
    let segments: string[];
    try {
      segments = path.split('/').map(decodeURIComponent);
    } catch {
      return undefined;
    }
    const allow: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { allow } : undefined;
  }
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = segments[i]!;
    else if (expected !== segments[i]) return undefined;
  }
  return params;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorClock } from '../store/state.js';
import type { FaultPlan } from '../faults/faults.js';
import type { Intake } from '../webhook/intake.js';
import type { LiveRows } from '../store/live-rows.js';
import type { OrgRec } from '../store/model.js';
import type { RateLimitEnforcer } from '../faults/rate-limit.js';
import type { ReadDeps } from '../read/read-routes.js';
import type { RoutePattern } from './route-table.js';
import type { RequestLogEntry } from '../options.js';
import type { NetworkDelay } from './latency.js';

/** Everything the routes of a running emulator work with. */
export interface ServerDeps extends ReadDeps {
  limiter: RateLimitEnforcer;
  intake: Intake;
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
  log?: (line: string) => void;
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

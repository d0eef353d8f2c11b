// src/emulator/: `tds emulator`, a strict stand-in for the service. Its surface is this file:
// `startEmulator` (a running emulator: its URL, keys, request log, stop), its options and errors
// (fault, churn and state-file specs), the seeds and defaults, and `adminAllowed`/`isLoopbackHost`
// (where the /_emulator/ admin routes answer). It imports nothing of the client but service/.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assemble, type EmulatorParts } from './assemble.js';
import { CursorCodec } from './read/cursor.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './defaults.js';
import { FaultPlan, parseFaultSpec } from './faults/faults.js';
import { saveState } from './store/persist.js';
import { RateLimitEnforcer } from './faults/rate-limit.js';
import { WEBHOOK_PATH_PREFIX } from './http/secrets.js';
import { createEmulatorServer } from './http/server.js';
import { NetworkDelay } from './http/latency.js';
import type { EmulatorOptions, RequestLogEntry, RunningEmulator } from './store/types.js';

export type { EmulatorOptions, RequestLogEntry, RunningEmulator } from './store/types.js';
export { FaultSpecError, parseFaultSpec, FAULT_KINDS } from './faults/faults.js';
export { ChurnSpecError, parseChurnRates } from './churn/churn-rates.js';
export { StateFileError } from './store/persist.js';
export { LatencySpecError, parseLatency, type LatencySpec } from './http/latency.js';
export { DEMO_KEYS } from './seed/index.js';
export { SEED_NAMES, SEEDED_ACTIONS, type SeedName, type SeededActions } from './seed/seed-names.js';
export { DEFAULT_ACTION_DELAY_MS, DEFAULT_HOST, DEFAULT_INGEST_DELAY_MS, DEFAULT_PORT } from './defaults.js';

/** Starts the emulator of the service (service-api.md) on an HTTP server; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const readFaults = parseFaultSpec(options.readFaults ?? '');
  const webhookFaults = parseFaultSpec(options.webhookFaults ?? '');
  const rateScale = options.rateScale ?? 1;
  if (!(rateScale > 0)) throw new RangeError('rateScale must be more than 0');
  const parts = await assemble(options);
  const { state, clock, intake, live } = parts;

  const host = options.host ?? DEFAULT_HOST;
  const requestLog: RequestLogEntry[] = [];
  const webhooks: Record<string, string> = {};
  let origin = '';
  const faultSeed = options.faultSeed ?? 1;
  const { server, releaseStalled } = createEmulatorServer({
    state,
    now: clock.now,
    clock,
    cursors: new CursorCodec(),
    limiter: new RateLimitEnforcer(options.rateLimits ?? true, rateScale),
    intake,
    live,
    readFaults: new FaultPlan(readFaults, faultSeed),
    webhookFaults: new FaultPlan(webhookFaults, faultSeed),
    requestLog,
    secrets: new Set([...state.orgs.map((org) => org.key), ...state.webhookIds().map(([, id]) => id)]),
    webhooks,
    origin: () => origin,
    admin: adminAllowed(host, options.admin ?? false),
    ...(options.latency && options.latency.ms > 0 ? { delay: new NetworkDelay(options.latency, faultSeed) } : {}),
    ...(options.log ? { log: options.log } : {}),
  });

  origin = await listen(server, host, options.port ?? DEFAULT_PORT);
  for (const [tableId, id] of state.webhookIds()) webhooks[tableId] = `${origin}${WEBHOOK_PATH_PREFIX}${id}`;
  parts.churn?.start();
  return {
    baseUrl: `${origin}/v1`,
    apiKey: state.orgs[0]?.key ?? '',
    apiKeys: Object.fromEntries(state.orgs.map((org) => [org.name, org.key])),
    webhooks,
    requestLog,
    flushIntake: () => intake.flushAll(),
    close: closer(server, releaseStalled, parts, options.dataFile),
  };
}

/** Listens; resolves with the origin (`http://host:port`). */
async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

/**
 * Stops churn and the server, makes pending webhook rows visible, finishes every action run at once (so a
 * saved state has no cell left queued or running), then saves --data. Calling it again returns the same promise.
 */
function closer(server: Server, releaseStalled: () => void, parts: EmulatorParts, dataFile?: string): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      parts.churn?.stop();
      releaseStalled();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      parts.intake.flushAll();
      if (dataFile) {
        parts.runner.finishAll();
        await saveState(parts.state, dataFile, parts.clock.offsetMs);
      }
      parts.runner.close();
    })());
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and localhost. */
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host.trim());
}

/** The admin routes answer on a loopback bind, or anywhere with --admin; elsewhere they are unknown routes (404). */
export function adminAllowed(host: string, adminFlag: boolean): boolean {
  return adminFlag || isLoopbackHost(host);
}

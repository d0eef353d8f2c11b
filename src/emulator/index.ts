import type { AddressInfo } from 'node:net';
import { addBenchTable } from './bench-table.js';
import { CursorCodec } from './cursor.js';
import { DEFAULT_HOST, DEFAULT_INGEST_DELAY_MS, DEFAULT_PORT } from './defaults.js';
import { FaultPlan, parseFaultSpec } from './faults.js';
import { Intake } from './intake.js';
import { loadState, saveState } from './persist.js';
import { RateLimiter } from './rate-limit.js';
import { WEBHOOK_PATH_PREFIX } from './secrets.js';
import { buildSeed } from './seed/index.js';
import { createEmulatorServer } from './server.js';
import type { EmulatorOptions, RequestLogEntry, RunningEmulator } from './types.js';

export type { EmulatorOptions, RequestLogEntry, RunningEmulator } from './types.js';
export { FaultSpecError, parseFaultSpec, FAULT_KINDS } from './faults.js';
export { StateFileError } from './persist.js';
export { DEMO_KEYS } from './seed/index.js';
export { SEED_NAMES, type SeedName } from './seed/seed-names.js';
export { DEFAULT_HOST, DEFAULT_INGEST_DELAY_MS, DEFAULT_PORT } from './defaults.js';

/** Starts the emulator of the service (service-api.md) on an HTTP server; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const readFaults = parseFaultSpec(options.readFaults ?? '');
  const webhookFaults = parseFaultSpec(options.webhookFaults ?? '');
  const rateScale = options.rateScale ?? 1;
  if (!(rateScale > 0)) throw new RangeError('rateScale must be more than 0');

  const state = (options.dataFile ? await loadState(options.dataFile) : undefined) ?? buildSeed(options.seed ?? 'demo', now());
  if (options.rows !== undefined && options.rows > 0) addBenchTable(state, options.rows, now());
  if (options.paused && state.orgs[0]) state.orgs[0].paused = true;

  const intake = new Intake(options.ingestDelayMs ?? DEFAULT_INGEST_DELAY_MS, now);
  const requestLog: RequestLogEntry[] = [];
  const faultSeed = options.faultSeed ?? 1;
  const { server, releaseStalled } = createEmulatorServer({
    state,
    now,
    cursors: new CursorCodec(),
    limiter: new RateLimiter(options.rateLimits ?? true, rateScale),
    intake,
    readFaults: new FaultPlan(readFaults, faultSeed),
    webhookFaults: new FaultPlan(webhookFaults, faultSeed),
    requestLog,
    secrets: new Set([...state.orgs.map((org) => org.key), ...state.webhookIds().map(([, id]) => id)]),
    ...(options.log ? { log: options.log } : {}),
  });

  const host = options.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/v1`,
    apiKey: state.orgs[0]?.key ?? '',
    apiKeys: Object.fromEntries(state.orgs.map((org) => [org.name, org.key])),
    webhooks: Object.fromEntries(state.webhookIds().map(([tableId, id]) => [tableId, `${origin}${WEBHOOK_PATH_PREFIX}${id}`])),
    requestLog,
    flushIntake: () => intake.flushAll(),
    close: () =>
      (closing ??= (async () => {
        releaseStalled();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        intake.flushAll();
        if (options.dataFile) await saveState(state, options.dataFile);
      })()),
  };
}

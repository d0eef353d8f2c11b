// The emulator assembled from its rooms and started: startEmulator (exported through index.ts, which loads
// this file when called) and assemble, the parts that live apart from its HTTP server.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CursorCodec } from './read/cursor.js';
import { parseFaultSpec } from './faults/fault-spec.js';
import { FaultPlan } from './faults/faults.js';
import { RateLimitEnforcer } from './faults/rate-limit.js';
import { WEBHOOK_PATH_PREFIX } from './http/route-table.js';
import { createEmulatorServer } from './http/server.js';
import { NetworkDelay } from './http/latency.js';
import { ActionRunner } from './actions/action-runner.js';
import { ChurnSpecError, parseChurnRates } from './churn/churn-rates.js';
import { Churn } from './churn/churn.js';
import { buildSeed } from './seed/index.js';
import { createPrng } from './seed/prng.js';
import { EmulatorClock, type EmulatorState } from './store/state.js';
import { addGeneratedTable } from './store/generated-overlay.js';
import { LiveRows } from './store/live-rows.js';
import { loadState, saveState } from './store/persist.js';
import { Intake } from './webhook/intake.js';
import { IntakeLimits } from './webhook/limits.js';
import { RequestHold } from './http/request-hold.js';
import { adminAllowed } from './loopback.js';
import {
  DEFAULT_ACTION_DELAY_MS,
  DEFAULT_HOST,
  DEFAULT_INGEST_DELAY_MS,
  DEFAULT_PORT,
  type EmulatorOptions,
  type RequestLogEntry,
  type RunningEmulator,
} from './options.js';

/** Starts the emulator of the service (docs/service-api.md) on an HTTP server; resolves once it listens. */
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
    limiter: new RateLimitEnforcer(options.rateLimits ?? true, rateScale, options.rateLimitNow),
    intake,
    limits: new IntakeLimits(
      {
        ...(options.webhookBudget !== undefined ? { webhookBudget: options.webhookBudget } : {}),
        ...(options.tableCapacity !== undefined ? { tableCapacity: options.tableCapacity } : {}),
      },
      (tableId) => intake.heldRows(tableId),
    ),
    live,
    readFaults: new FaultPlan(readFaults, faultSeed),
    webhookFaults: new FaultPlan(webhookFaults, faultSeed),
    requestLog,
    secrets: new Set([...state.orgs.map((org) => org.key), ...state.tables.flatMap((table) => state.webhooksOf(table))]),
    webhooks,
    origin: () => origin,
    admin: adminAllowed(host, options.admin ?? false),
    hold: new RequestHold(),
    ...(options.latency && options.latency.ms > 0 ? { delay: new NetworkDelay(options.latency, faultSeed) } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.onArrival ? { onArrival: options.onArrival } : {}),
  });

  // this run is in the file before churn draws an ID: a run killed before it saved is counted too
  if (options.dataFile && parts.churn) await saveState(state, options.dataFile, clock.offsetMs);
  origin = await listen(server, host, options.port ?? DEFAULT_PORT);
  for (const [tableId, id] of state.webhookIds()) webhooks[tableId] = `${origin}${WEBHOOK_PATH_PREFIX}${id}`;
  if (options.churnTicks !== 'manual') parts.churn?.start();
  return {
    baseUrl: `${origin}/v1`,
    apiKey: state.orgs[0]?.key ?? '',
    apiKeys: Object.fromEntries(state.orgs.map((org) => [org.name, org.key])),
    webhooks,
    webhookTables: () => webhookTables(state, webhooks),
    requestLog,
    flushIntake: () => intake.flushAll(),
    churnFor: (ms) => parts.churn?.tick(ms),
    close: closer(server, releaseStalled, parts, options.dataFile),
  };
}

/** Every webhook-fed table now, by workspace and name, with its webhook URL. */
function webhookTables(state: EmulatorState, webhooks: Record<string, string>): ReturnType<RunningEmulator['webhookTables']> {
  return state.tables.flatMap((record) => {
    const url = webhooks[record.id];
    if (!url) return [];
    const { name, workspaceName } = state.describeTable(record);
    return [{ workspace: workspaceName, table: name, url }];
  });
}

/** The parts of an emulator that live apart from its HTTP server. */
interface EmulatorParts {
  state: EmulatorState;
  clock: EmulatorClock;
  runner: ActionRunner;
  live: LiveRows;
  intake: Intake;
  churn?: Churn;
}

/** State (loaded from --data, else seeded), the clock, action runs, webhook intake and churn; nothing started yet. */
export async function assemble(options: EmulatorOptions): Promise<EmulatorParts> {
  const churnSpec = options.churn === undefined ? undefined : parseChurnRates(options.churn);
  const loaded = options.dataFile ? await loadState(options.dataFile) : undefined;
  const clock = new EmulatorClock(options.now ?? Date.now, loaded?.clockOffsetMs ?? 0);
  const state = loaded?.state ?? buildSeed(options.seed ?? 'demo', clock.now());
  if (options.rows !== undefined && options.rows > 0) addGeneratedTable(state, options.rows, clock.now());
  if (options.paused && state.orgs[0]) state.orgs[0].paused = true;

  const seed = options.faultSeed ?? 1;
  const runner = new ActionRunner({ delayMs: options.actionDelayMs ?? DEFAULT_ACTION_DELAY_MS, seed, now: clock.now });
  if (!loaded && options.seededActions !== 'pending') resumeSeededActions(state, runner, seed);
  const live = new LiveRows(runner, clock.now);
  const intake = new Intake(options.ingestDelayMs ?? DEFAULT_INGEST_DELAY_MS, clock.now, live, options.rateScale);
  const parts: EmulatorParts = { state, clock, runner, live, intake };
  if (churnSpec) {
    const only = churnSpec.table;
    if (only !== undefined && !state.tables.some((table) => table.name === only || table.id === only)) {
      throw new ChurnSpecError(`churn spec: no table "${only}" (give a table's name or ID)`);
    }
    parts.churn = new Churn(churnSpec, { tables: () => state.tables, live, now: clock.now, seed, run: state.run });
  }
  return parts;
}

/**
 * The seed's action cells that are not final (queued, waiting, running) run on, as new ones do, so a living
 * organization has no cell stuck forever. Their outcomes come from the fault seed, on a stream of their own:
 * the outcomes of rows that arrive later are the same whether seeded cells run or not.
 */
function resumeSeededActions(state: EmulatorState, runner: ActionRunner, faultSeed: number): void {
  const draw = createPrng((faultSeed ^ 0x5eed_ac75) >>> 0);
  for (const table of state.tables) runner.resume(table, table.rows.held(), draw);
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
 * Stops churn and the server, makes the webhook rows the intake holds visible, finishes every action run at once (so a
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

// src/emulator/: `tds emulator`, a strict stand-in for the service. Its surface is this file:
// `startEmulator` (start-emulator.ts: a running emulator, its URL, keys, request log, stop), its options
// and errors (fault, churn, latency and state-file specs), the defaults and seeds (options.ts), and
// `adminAllowed`/`isLoopbackHost` (loopback.ts: where the /_emulator/ admin routes answer). It imports
// nothing of the client but service/. Light: `tds emulator`'s definition reads its defaults and spec
// parsers here at start-up; the emulator itself (start-emulator.ts) is loaded by startEmulator.

import type { EmulatorOptions, RunningEmulator } from './options.js';

export { ChurnSpecError, parseChurnRates } from './churn/churn-rates.js';
export { FAULT_KINDS, FaultSpecError, parseFaultSpec } from './faults/fault-spec.js';
export { LatencySpecError, parseLatency, type LatencySpec } from './http/latency.js';
export { adminAllowed, isLoopbackHost } from './loopback.js';
export {
  DEFAULT_ACTION_DELAY_MS,
  DEFAULT_HOST,
  DEFAULT_INGEST_DELAY_MS,
  DEFAULT_PORT,
  SEED_NAMES,
  SEEDED_ACTIONS,
  type EmulatorOptions,
  type RequestLogEntry,
  type RunningEmulator,
  type SeedName,
  type SeededActions,
} from './options.js';
export { StateFileError } from './store/state-file-error.js';

/** Starts the emulator of the service (docs/service-api.md) on an HTTP server; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return (await import('./start-emulator.js')).startEmulator(options);
}

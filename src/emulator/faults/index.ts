// emulator/faults/: what the emulator refuses on purpose or by rule. Surface: the fault spec, its plan and
// responses (faults.ts), and the service's rate limits (rate-limit.ts).

export { FAULT_KINDS, FaultPlan, FaultSpecError, isAfterAccept, parseFaultSpec, sendFault } from './faults.js';
export { enforceLimit, RateLimitEnforcer } from './rate-limit.js';

// emulator/faults/: what the emulator refuses on purpose or by rule. Surface: the fault spec (fault-spec.ts,
// light: `tds emulator`'s definition reads it), its plan and responses (faults.ts), and the service's rate
// limits (rate-limit.ts).

export { FAULT_KINDS, FaultSpecError, isAfterAccept, parseFaultSpec } from './fault-spec.js';
export { FaultPlan, sendFault } from './faults.js';
export { enforceLimit, RateLimitEnforcer } from './rate-limit.js';

// push/key/: push by key (--key). Surface: prepareKeyed, KeyedPush and keyedOptions (keyed-push.ts); the
// record key and PushedKeys (record-key.ts); KeyLookups (key-lookups.ts); markExisting (--skip-existing,
// mark-existing.ts); KeyReconciler (reconcile.ts, which waits as intake-window.ts says); TableLock
// (table-lock.ts).

export { INTAKE_LONGEST_MS, type IntakeTiming, type SentRequest } from './intake-window.js';
export type { KeyLookups, LookupPlan, LookupRequests } from './key-lookups.js';
export { keyedOptions, prepareKeyed, type KeyedPush, type KeyJob } from './keyed-push.js';
export { markExisting } from './mark-existing.js';
export { KeyReconciler, type SentBatch } from './reconcile.js';
export { keyedRecords, parseKeyMapping, PushedKeys, type KeyedOptions, type KeyMapping } from './record-key.js';
export { TableLock } from './table-lock.js';

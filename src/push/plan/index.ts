// push/plan/: batching. Surface: Batch and its parts (batch.ts), batchInput (input-batches.ts: the batches
// due), the resume plan and batch selections (resume-plan.ts), PushTally (tally.ts).

export { batchId, narrowBatch, recordsText, splitBatch, type Batch, type BatchItem, type BatchLimits } from './batch.js';
export { batchInput } from './input-batches.js';
export { JournalIndex, overlaps, parseBatchSelection, type UncertainPolicy } from './resume-plan.js';
export { add, PushTally, type UncertainBatch } from './tally.js';

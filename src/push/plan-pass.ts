import type { Context } from '../cli/context.js';
import { batchRecords, type Batch, type BatchLimits } from './batch.js';
import { dueBatches } from './due-batches.js';
import { startProgress } from './progress.js';
import type { PushRunOptions } from './push-run.js';
import { readInput, type ReadStats } from './read-input.js';
import { RejectsFile } from './rejects.js';
import type { JournalIndex } from './resume-plan.js';
import { PushTally } from './tally.js';

export interface Plan {
  tally: PushTally;
  /** uncertain batches of the journal confirmed as taken in (--accept-uncertain); the sending pass journals them */
  confirmed: Batch[];
  stats: ReadStats;
  seconds: number;
}

/** Reads and batches the whole input without sending: the dry run, and the check of a file before sending. */
export async function planPass(ctx: Context, options: PushRunOptions, limits: BatchLimits, index: JournalIndex | undefined): Promise<Plan> {
  const started = performance.now();
  const tally = new PushTally();
  const confirmed: Batch[] = [];
  const reader = readInput(options.input, ctx.io.stdin, options.read);
  // A file's rejected records (too large, or rejected in an earlier run) are all listed now; the
  // sending pass adds the ones the webhook rejects.
  const rejects = options.rejectsPath && !options.dryRun ? await RejectsFile.open(options.rejectsPath, 'staged') : undefined;
  const progress = startProgress(
    options.progress ? ctx.io : undefined,
    () => `checking ${options.input === '-' ? 'stdin' : options.input}: ${reader.stats.records.toLocaleString('en-US')} records`,
  );
  try {
    const due = dueBatches(batchRecords(reader.records, limits), {
      tally,
      index,
      uncertain: options.uncertain,
      onConfirmed: (batch) => void confirmed.push(batch),
      journalPath: options.journalPath,
      maxBytes: limits.maxBytes,
      signal: ctx.signal,
      onRejected: (batch, reason) => rejects?.write(batch.items, reason),
    });
    for await (const _batch of due) {
      // counted by dueBatches
    }
  } catch (error) {
    await rejects?.discard();
    throw error;
  } finally {
    progress.stop();
  }
  await rejects?.close();
  return { tally, confirmed, stats: reader.stats, seconds: (performance.now() - started) / 1000 };
}

import type { Context } from '../core/context.js';
import { startLiveLine } from '../output/live-line.js';
import { readInput } from './input/read-input.js';
import { keyedOptions, type KeyedPush } from './key/keyed-push.js';
import { logDuplicate, RejectsFile } from './report/rejects.js';
import type { PushedKeys } from './key/record-key.js';
import type { ReadStats } from './input/input-record.js';
import type { Batch, BatchLimits } from './plan/batch.js';
import { batchPass } from './plan/batch-pass.js';
import type { JournalIndex } from './plan/resume-plan.js';
import type { PushTally } from './plan/tally.js';
import { sourceName, type InputOptions, type JournalOptions } from './push-job.js';

/** What reading the whole input without sending found. */
export interface ValidationResult {
  tally: PushTally;
  /** uncertain batches of the journal confirmed as taken in (--accept-uncertain); to be journaled */
  confirmed: Batch[];
  stats: ReadStats;
  seconds: number;
}

export interface ValidateOptions {
  input: InputOptions;
  limits: BatchLimits;
  journal: JournalOptions;
  index?: JournalIndex;
  /** --rejects FILE: a file's rejected records are all listed now (staged, so a failed check keeps an earlier file) */
  rejectsPath?: string;
  progress: boolean;
  /** --key: keys read, repeated and missing ones marked; the keys collected in input order */
  keyed?: { push: KeyedPush; keys: PushedKeys };
}

/** Reads and batches the whole input without sending: the dry run, and the check of a file before sending. */
export async function validatePass(ctx: Context, options: ValidateOptions): Promise<ValidationResult> {
  const started = performance.now();
  const confirmed: Batch[] = [];
  const reader = readInput(options.input.path, options.input.stdin, options.input.read);
  const rejects = options.rejectsPath ? await RejectsFile.open(options.rejectsPath, 'staged') : undefined;
  const pass = batchPass(reader, options.limits, {
    index: options.index,
    uncertain: options.journal.uncertain,
    onConfirmed: (batch) => void confirmed.push(batch),
    journalPath: options.journal.path,
    signal: ctx.signal,
    onRejected: async (batch, reason) => {
      options.keyed?.keys.reject(batch.items.map((item) => item.record));
      await rejects?.write(batch.items, reason);
    },
    ...(options.keyed ? { key: keyedOptions(options.keyed.push, sourceName(options.input), options.keyed.keys) } : {}),
    onDuplicate: logDuplicate(ctx),
  });
  const count = (): string => reader.stats.records.toLocaleString('en-US');
  const line = options.progress
    ? await startLiveLine(ctx.io, () => `checking ${sourceName(options.input)}: ${count()} records`, 250)
    : undefined;
  try {
    for await (const _batch of pass.batches) {
      // counted by the pass
    }
  } catch (error) {
    await rejects?.discard();
    throw error;
  } finally {
    line?.stop();
  }
  await rejects?.close();
  return { tally: pass.tally, confirmed, stats: reader.stats, seconds: (performance.now() - started) / 1000 };
}

import type { Context } from '../core/context.js';
import type { TruncationTally } from '../records/truncation-tally.js';
import type { PreparedOutput } from './prepare-output.js';
import { reportTruncation, type TruncationPolicy } from './report.js';

/** Every page is written and this many cells were cut; `beforeReport` clears the progress line first. */
export interface WrittenExport {
  tally: TruncationTally;
  policy: TruncationPolicy;
  beforeReport(): void;
}

/** Every page is written: the truncation report; with --on-truncated error, the file is kept as FILE.partial and exit 8. */
export async function failOnTruncation(ctx: Context, prepared: PreparedOutput, written: WrittenExport): Promise<void> {
  if (written.tally.total === 0) return;
  written.beforeReport();
  const failure = reportTruncation(ctx, written.tally, written.policy);
  if (!failure) return;
  await prepared.output.keepWhole();
  await prepared.checkpoint?.remove();
  throw failure;
}

/**
 * FILE.partial becomes FILE. The checkpoint saying that the last page was written is on disk first,
 * and is removed only after the rename, so a kill at any moment leaves a state the next run reads:
 * before the rename, --resume ends the file; after it, the checkpoint is recognised as a completed
 * export (FILE present, FILE.partial gone).
 */
export async function commitOutput(prepared: PreparedOutput): Promise<void> {
  await prepared.checkpoint?.flush();
  await prepared.output.commit();
  await prepared.checkpoint?.remove();
}

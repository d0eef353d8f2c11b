import type { Context } from '../core/context.js';
import { OutputWriteError } from '../output/write-error.js';
import type { ExportState } from './export-state.js';
import type { PreparedOutput } from './prepare-output.js';
import { reportStop, writeFailure } from './report.js';

/** Why and where an export stopped before its end. */
export interface Stop {
  error: unknown;
  state: ExportState;
  /** The cursor a resumed export started from, and how many pages this run fetched. */
  resumedCursor: string | undefined;
  pages: number;
}

/** The export stops before the end: keep what a resume needs, say how to continue, and give the error to throw. */
export async function stopExport(ctx: Context, prepared: PreparedOutput, stop: Stop): Promise<unknown> {
  const { output, checkpoint } = prepared;
  const { error } = stop;
  if (!checkpoint) return error;
  if (error instanceof OutputWriteError) return keepAfterWriteFailure(prepared, error);
  if (!prepared.resumed && stop.pages === 0) {
    await output.discard(); // nothing worth resuming
    return error;
  }
  await output.keep();
  await checkpoint.flush();
  return reportStop(ctx, { ...stop, partialPath: output.partialPath ?? '', checkpointPath: prepared.checkpointPath ?? '' });
}

/**
 * A write was refused (a full disk): what the checkpoint file holds is what a resume continues from,
 * whatever else still fails now. The partial file is kept with it (cut back to its bytes on resume),
 * or removed when no checkpoint was ever written.
 */
async function keepAfterWriteFailure(prepared: PreparedOutput, error: OutputWriteError): Promise<OutputWriteError> {
  const { output, checkpoint } = prepared;
  await output.keep().catch(() => undefined);
  await checkpoint?.flush().catch(() => undefined);
  const kept = checkpoint?.onDisk;
  if (!kept) await output.discard();
  return writeFailure(error, kept ? { rows: kept.rows, partialPath: output.partialPath ?? '' } : undefined);
}

import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { checkpointPath, CheckpointWriter, readCheckpoint, type Checkpoint } from './checkpoint.js';
import { fileOutput, removePartial, streamOutput, type ExportOutput } from './export-output.js';
import { fingerprintDifferences, type ExportFingerprint } from './fingerprint.js';

export interface OutputRequest {
  /** `-o FILE`; stdout when undefined. */
  path?: string;
  resume: boolean;
  restart: boolean;
  fingerprint: ExportFingerprint;
}

export interface PreparedOutput {
  output: ExportOutput;
  /** Files only. */
  checkpoint?: CheckpointWriter;
  checkpointPath?: string;
  /** The checkpoint being resumed, when --resume found one that matches. */
  resumed?: Checkpoint;
}

/**
 * Opens the export's output. For `-o FILE` a checkpoint beside it decides: --resume continues it
 * (same export only), --restart drops it, and without either flag an existing one stops the
 * command so that an interrupted export is never overwritten by accident.
 */
export async function prepareOutput(ctx: Context, request: OutputRequest): Promise<PreparedOutput> {
  const { path } = request;
  if (path === undefined) return { output: streamOutput(ctx.io.stdout) };
  const cpPath = checkpointPath(path);
  const saved = request.restart ? undefined : await readCheckpoint(cpPath);
  if (saved && !request.resume) {
    throw new UsageError(`an interrupted export to ${path} can be continued (${saved.rows.toLocaleString('en-US')} rows so far)`, {
      hint: 'add --resume to continue it, or --restart to start over',
    });
  }
  if (saved) {
    const differences = fingerprintDifferences(saved.fingerprint, request.fingerprint);
    if (differences.length > 0) {
      throw new UsageError(`cannot resume the export to ${path}: it was started with other settings for ${differences.join('; ')}`, {
        hint: 'run the command with the same table, filters and options as before, or start over with --restart',
      });
    }
  } else {
    if (request.resume) ctx.io.stderr.write(`tds: no checkpoint for ${path}: starting from the beginning\n`);
    await removePartial(path);
  }
  const output = await fileOutput(path, saved?.bytes);
  const checkpoint = new CheckpointWriter(cpPath, () => output.syncData());
  if (!saved) await checkpoint.remove();
  return { output, checkpoint, checkpointPath: cpPath, ...(saved ? { resumed: saved } : {}) };
}

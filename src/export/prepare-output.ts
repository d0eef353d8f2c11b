import { lstat } from 'node:fs/promises';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { ProcessLock } from '../core/process-lock.js';
import type { FileOpener } from '../output/atomic-file.js';
import { claimOutput } from '../output/claim-output.js';
import { checkpointPath, CheckpointWriter, readCheckpoint, removeStaleTemporaries, type Checkpoint } from './checkpoint.js';
import type { TypedColumn } from '../records/typed-plan.js';
import { fileOutput, removePartial, streamOutput, type ByteOutput } from './export-output.js';
import { fingerprintDifferences, type ExportFingerprint } from './fingerprint.js';
import type { StagedOutput } from '../parquet/staged-output.js';
import { stagingPath } from '../parquet/staging-files.js';

export interface OutputRequest {
  /** `-o FILE`; stdout when undefined. */
  path?: string;
  resume: boolean;
  restart: boolean;
  fingerprint: ExportFingerprint;
  /** Opens FILE.partial (tests give one whose writes fail); the system's by default. */
  open?: FileOpener;
  /** Parquet: rows of these typed columns are staged in a DuckDB file beside FILE (-o FILE only). */
  staged?: { columns: readonly TypedColumn[] };
}

export interface PreparedOutput {
  output: ByteOutput | StagedOutput;
  /** Files only. */
  checkpoint?: CheckpointWriter;
  checkpointPath?: string;
  /** The checkpoint being resumed, when --resume found one that matches. */
  resumed?: Checkpoint;
  /** --resume of an export that had completed (FILE in place, only its checkpoint left): nothing to do. */
  completed?: Checkpoint;
  /** Lets go of FILE (the lock that kept other runs from writing it). */
  release(): Promise<void>;
}

/**
 * Opens the export's output. For `-o FILE`, FILE is locked for the whole run (a second run to the
 * same FILE exits 2) and a checkpoint beside it decides: --resume continues it (same export only),
 * --restart drops it, and without either flag an existing one stops the command so that an
 * interrupted export is never overwritten by accident.
 */
export async function prepareOutput(ctx: Context, request: OutputRequest): Promise<PreparedOutput> {
  const { path } = request;
  if (path === undefined) {
    // readExportFlags refuses parquet without -o before anything is read
    if (request.staged) throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal or a pipe');
    return { output: streamOutput(ctx.io.stdout), release: async () => undefined };
  }
  const lock = await claimOutput(path, 'another export');
  try {
    return await prepareFile(ctx, request, path, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function prepareFile(ctx: Context, request: OutputRequest, path: string, lock: ProcessLock): Promise<PreparedOutput> {
  const cpPath = checkpointPath(path);
  await removeStaleTemporaries(cpPath);
  let saved = request.restart ? undefined : await readCheckpoint(cpPath);
  const release = (): Promise<void> => lock.release();
  if (saved && (await completedExport(path, saved))) {
    // Killed after FILE was renamed into place, before the checkpoint was removed: the export completed.
    if (request.resume) {
      checkSameExport(path, saved, request.fingerprint);
      await removePartial(path); // a staging file's WAL a kill during its removal left
      await new CheckpointWriter(cpPath, async () => undefined).remove();
      ctx.io.stderr.write(`tds: the export to ${path} is already complete (${saved.rows.toLocaleString('en-US')} rows); nothing to do\n`);
      return { output: streamOutput(ctx.io.stdout), completed: saved, release };
    }
    saved = undefined; // a plain run starts afresh (and replaces the checkpoint)
  }
  if (saved && !request.resume) {
    throw new UsageError(`an interrupted export to ${path} can be continued (${saved.rows.toLocaleString('en-US')} rows so far)`, {
      hint: 'add --resume to continue it, or --restart to start over',
    });
  }
  if (saved) {
    checkSameExport(path, saved, request.fingerprint);
  } else {
    if (request.resume) ctx.io.stderr.write(`tds: no checkpoint for ${path}: starting from the beginning\n`);
    await removePartial(path);
  }
  const output = request.staged
    ? await (await import('../parquet/staged-output.js')).openStagedOutput(path, request.staged.columns, saved?.bytes)
    : await fileOutput(path, saved?.bytes, request.open);
  const checkpoint = new CheckpointWriter(cpPath, () => output.syncData(), saved ? { saved } : {});
  if (!saved) await checkpoint.remove();
  return { output, checkpoint, checkpointPath: cpPath, ...(saved ? { resumed: saved } : {}), release };
}

function checkSameExport(path: string, saved: Checkpoint, fingerprint: ExportFingerprint): void {
  const differences = fingerprintDifferences(saved.fingerprint, fingerprint);
  if (differences.length > 0) {
    throw new UsageError(`cannot resume the export to ${path}: it was started with other settings for ${differences.join('; ')}`, {
      hint: 'run the command with the same table, filters and options as before, or start over with --restart',
    });
  }
}

/**
 * The checkpoint says the last page was written, FILE.partial is gone (and so is Parquet's staging file,
 * removed only after the rename) and FILE is a file: the rename happened.
 */
async function completedExport(path: string, saved: Checkpoint): Promise<boolean> {
  if (!saved.done) return false;
  const [partial, staging, file] = await Promise.all(
    [`${path}.partial`, stagingPath(path), path].map((candidate) => lstat(candidate).catch(() => undefined)),
  );
  return partial === undefined && staging === undefined && file !== undefined && file.isFile();
}

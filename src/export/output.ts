import { once } from 'node:events';
import { lstat, truncate } from 'node:fs/promises';
import { type Context, UsageError, type ProcessLock } from '../core/index.js';
import { createAtomicFile, type AtomicFile, type FileOpener, claimOutput, asWriteError, OutputWriteError } from '../output/index.js';
import type { StagedOutput } from '../parquet/index.js';
// staging-files.ts alone: parquet/index.ts loads DuckDB, which an export loads only for Parquet
import { removeFile, removeStaging, stagingPath } from '../parquet/staging-files.js';
import type { TruncationTally, TypedColumn } from '../records/index.js';
import type { Row } from '../service/index.js';
import {
  checkpointPath,
  CheckpointWriter,
  fingerprintDifferences,
  readCheckpoint,
  removeStaleTemporaries,
  type Checkpoint,
  type ExportFingerprint,
  type ExportState,
} from './checkpoint.js';
import { reportStop, reportTruncation, writeFailure, type TruncationPolicy } from './report.js';

/** Where an export goes, and what becomes of it at the end: ByteOutput, or Parquet's StagedOutput. */
export interface ExportOutput {
  /** What holds the rows while a file is written (`FILE.partial`, Parquet's staging file); undefined on stdout. */
  readonly partialPath?: string;
  /** fsync of the data written so far (files only). */
  syncData(): Promise<void>;
  /** The output is complete: rename `FILE.partial` to FILE. */
  commit(): Promise<void>;
  /** The export stops before the end: keep `FILE.partial` (synced) for --resume or a look. */
  keep(): Promise<void>;
  /** Every row is written but FILE is not to be replaced (--on-truncated error): leave `FILE.partial` whole. */
  keepWhole(): Promise<void>;
  /** The export failed before its first page: remove `FILE.partial`. */
  discard(): Promise<void>;
}

/** Where the bytes of a text format go: stdout, or `-o FILE` through `FILE.partial`. */
export interface ByteOutput extends ExportOutput {
  readonly kind: 'bytes';
  /**
   * Resolves once the chunk is handed to the system (a file) or accepted (stdout, respecting
   * backpressure); a refused write rejects with an OutputWriteError naming the file (or stdout).
   */
  write(chunk: Buffer): Promise<void>;
}

export function streamOutput(stream: NodeJS.WritableStream): ByteOutput {
  return {
    kind: 'bytes',
    async write(chunk) {
      try {
        if (!stream.write(chunk)) await once(stream, 'drain');
      } catch (error) {
        throw asWriteError('stdout', error);
      }
    },
    syncData: async () => undefined,
    commit: async () => undefined,
    keep: async () => undefined,
    keepWhole: async () => undefined,
    discard: async () => undefined,
  };
}

/**
 * `-o FILE`, written to `FILE.partial`. With `resumeBytes` the partial file of an interrupted
 * export is cut back to that many bytes (the end of the last page the checkpoint counts) and
 * continued; without it any old partial file is replaced. `open` is the system's unless a test gives one.
 */
export async function fileOutput(path: string, resumeBytes?: number, open?: FileOpener): Promise<ByteOutput> {
  if (resumeBytes !== undefined) await cutPartial(`${path}.partial`, resumeBytes);
  const file: AtomicFile = await createAtomicFile(path, { append: resumeBytes !== undefined, ...(open ? { open } : {}) });
  const { partialPath } = file;
  // A failed write calls back with the error (and so does every write after it); the listener
  // only keeps the 'error' event from crashing the process.
  let failure: Error | undefined;
  file.stream.on('error', (error) => (failure ??= error));
  const failed = (error: unknown): never => {
    throw asWriteError(partialPath, error);
  };
  return {
    kind: 'bytes',
    partialPath,
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (failure) reject(asWriteError(partialPath, failure));
        else file.stream.write(chunk, (error) => (error ? reject(asWriteError(partialPath, error)) : resolve()));
      }),
    syncData: () => file.sync().catch(failed),
    commit: () => file.commit().catch(failed),
    keep: () => file.abandon().catch(failed),
    keepWhole: () => file.abandon().catch(failed),
    discard: () => file.discard(),
  };
}

async function cutPartial(partialPath: string, bytes: number): Promise<void> {
  const info = await lstat(partialPath).catch(() => undefined);
  if (info && !info.isFile()) {
    throw new UsageError(`cannot resume: ${partialPath} is not a regular file`, { hint: 'start the export over with --restart' });
  }
  const size = info?.size;
  if (size === undefined || size < bytes) {
    const found = size === undefined ? 'it is missing' : `it has ${size} bytes`;
    throw new UsageError(`cannot resume: the checkpoint counts ${bytes} bytes of ${partialPath} but ${found}`, {
      hint: 'start the export over with --restart',
    });
  }
  if (size > bytes) await truncate(partialPath, bytes);
}

/** Removes what an earlier export to FILE left (--restart, or a fresh start): `FILE.partial`, Parquet's staging. */
export async function removePartial(path: string): Promise<void> {
  await removeFile(`${path}.partial`);
  await removeStaging(path);
}

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

/** Rows → the export's output, a whole page at a time, keeping the export state's counts. */
export interface PageWriter {
  /** The CSV header or `[`, once at the start of a fresh output. */
  start(state: ExportState): Promise<void>;
  /** A page's rows; its cut cells are counted once it is written, as a checkpoint taken then says. */
  page(state: ExportState, rows: readonly Row[]): Promise<void>;
  /** `]` for JSON; Parquet commits its last rows. */
  end(state: ExportState): Promise<void>;
  /** Writers that commit rows in groups (Parquet's staging file): a checkpoint may count only committed rows. */
  deferred?: DeferredRows;
}

/** Rows written but not yet committed, and the way to commit them. */
export interface DeferredRows {
  /**
   * Once a commit of every row written so far has begun, a promise that resolves when it ends: a
   * checkpoint of the state now may be saved then. Undefined while some rows wait for a later commit.
   */
  covering(): Promise<void> | undefined;
  /** Commits every row written so far, and waits for it. */
  commitRows(): Promise<void>;
}

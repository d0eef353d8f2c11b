import { once } from 'node:events';
import { lstat, truncate } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { createAtomicFile, type AtomicFile, type FileOpener } from '../output/atomic-file.js';
import { asWriteError } from '../output/write-error.js';
import { removeFile, removeStaging } from '../parquet/staging-files.js';

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

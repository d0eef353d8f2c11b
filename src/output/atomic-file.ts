// `-o FILE`: claimed before anything is written (a regular file or none, no other tds process writing
// it: checkOutputTarget, claimOutput), then written aside and renamed over FILE (createAtomicFile).

import { createWriteStream, type Stats } from 'node:fs';
import { chmod, open, rename, unlink, lstat } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { UsageError, userFileMode, tryLock, type ProcessLock } from '../core/index.js';

/** A file opened for writing: its stream, and an fsync of what has been written to it. */
export interface OpenedFile {
  stream: Writable;
  sync(): Promise<void>;
}

/** Opens `path` for writing (`w`: replaced, `a`: appended to, `wx`: created, never opened if it exists). Tests give one whose writes fail. */
export type FileOpener = (path: string, flags: 'w' | 'a' | 'wx') => Promise<OpenedFile>;

/** The system's files. */
export const openFile: FileOpener = async (path, flags) => {
  const stream = createWriteStream(path, { flags });
  await once(stream, 'open');
  await chmod(path, userFileMode()); // the user's umask, even while a private one is held (see core/private-files.ts)
  return { stream, sync: () => syncFile(path) };
};

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface AtomicFile {
  /** Data goes here; it lands in `partialPath` until commit(). */
  stream: Writable;
  path: string;
  partialPath: string;
  /** fsync of the partial file (what has been written so far). */
  sync(): Promise<void>;
  /** Flushes, syncs and renames the partial file to its final name. */
  commit(): Promise<void>;
  /** Flushes, syncs and closes, keeping the partial file (an interrupted export that can be resumed). */
  abandon(): Promise<void>;
  /** Closes and removes the partial file. */
  discard(): Promise<void>;
}

export interface AtomicFileOptions {
  /** Continue an existing partial file (resume). */
  append?: boolean;
  /**
   * Remove a partial file left behind and create a new one that nothing else can be in its place
   * of (a symbolic link planted there is not followed).
   */
  fresh?: boolean;
  open?: FileOpener;
}

/**
 * A file written under `PATH.partial` and renamed when complete, so an interrupted export never
 * leaves a complete-looking file.
 */
export async function createAtomicFile(path: string, options: AtomicFileOptions = {}): Promise<AtomicFile> {
  const partialPath = `${path}.partial`;
  if (options.fresh) {
    await unlink(partialPath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  const flags = options.append ? 'a' : options.fresh ? 'wx' : 'w';
  const file = await (options.open ?? openFile)(partialPath, flags).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot write ${partialPath}${error.code ? ` (${error.code})` : ''}`, {
      hint: 'check that the folder of -o FILE exists and can be written',
    });
  });
  const { stream } = file;
  let closing: Promise<void> | undefined;
  // Ends the stream and waits for its file to be closed; an error on the way (the last bytes could not
  // be flushed) rejects. A stream that failed earlier is already closed, or closes by itself.
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve, reject) => {
      if (stream.closed) return resolve();
      const onError = (error: Error): void => {
        stream.off('close', onClose);
        reject(error);
      };
      const onClose = (): void => {
        stream.off('error', onError);
        resolve();
      };
      stream.once('error', onError);
      stream.once('close', onClose);
      if (!stream.destroyed) stream.end();
    }));
  return {
    stream,
    path,
    partialPath,
    sync: () => file.sync(),
    async commit() {
      await close();
      await file.sync();
      await rename(partialPath, path);
    },
    async abandon() {
      await close();
      await file.sync();
    },
    async discard() {
      await close().catch(() => undefined);
      await unlink(partialPath).catch(() => undefined);
    },
  };
}

// `-o FILE` is written to a temporary file renamed over FILE at the end. Before that starts, FILE is
// claimed: it must be a regular file (or not exist yet), and no other tds process may be writing it.

/** What FILE is, when it is not a regular file; undefined for a regular file. */
function kindOf(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isDirectory()) return 'a folder';
  if (info.isSocket()) return 'a socket';
  return 'a device';
}

const HINTS: Record<string, string> = {
  'a symbolic link': 'give the path it points to (see `realpath FILE`), or remove the link first',
  'a folder': 'give a file name, e.g. -o FOLDER/out.csv',
};

/**
 * Refuses an existing `-o` target that is not a regular file: the rename at the end would replace a
 * symbolic link (not write where it points), a named pipe or a device with a plain file.
 */
export async function checkOutputTarget(path: string): Promise<void> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  const kind = kindOf(info);
  if (kind === undefined) return;
  throw new UsageError(
    `-o ${path} is ${kind}: tds writes -o FILE to a temporary file and renames it over FILE when complete, which would replace it`,
    { hint: HINTS[kind] ?? `write to stdout instead: tds … > ${path}` },
  );
}

/**
 * Checks the target and takes the lock of `path` for this process (released by the caller, or by the
 * end of the process however it ends). `holder` names the other run in the message: `another export`.
 */
export async function claimOutput(path: string, holder: string): Promise<ProcessLock> {
  await checkOutputTarget(path);
  const lock = await tryLock(path);
  if (!lock) {
    throw new UsageError(`${holder} is writing ${path}`, {
      hint: 'wait until it has finished, or write to another file',
    });
  }
  return lock;
}

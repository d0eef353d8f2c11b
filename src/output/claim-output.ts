import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { tryLock, type ProcessLock } from '../core/process-lock.js';

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

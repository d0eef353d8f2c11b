import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { once } from 'node:events';

export interface AtomicFile {
  /** Data goes here; it lands in `partialPath` until commit(). */
  stream: WriteStream;
  path: string;
  partialPath: string;
  /** Flushes, syncs and renames the partial file to its final name. */
  commit(): Promise<void>;
  /** Flushes, syncs and closes, keeping the partial file (an interrupted export that can be resumed). */
  abandon(): Promise<void>;
  /** Closes and removes the partial file. */
  discard(): Promise<void>;
}

/**
 * A file written under `PATH.partial` and renamed when complete, so an interrupted export never
 * leaves a complete-looking file. `append` continues an existing partial file (resume).
 */
export async function createAtomicFile(path: string, options: { append?: boolean } = {}): Promise<AtomicFile> {
  const partialPath = `${path}.partial`;
  const stream = createWriteStream(partialPath, { flags: options.append ? 'a' : 'w' });
  await once(stream, 'open');
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (!stream.closed) {
        const closed = once(stream, 'close');
        stream.end();
        await closed;
      }
    })());
  const sync = async (): Promise<void> => {
    const handle = await open(partialPath, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  return {
    stream,
    path,
    partialPath,
    async commit() {
      await close();
      await sync();
      await rename(partialPath, path);
    },
    async abandon() {
      await close();
      await sync();
    },
    async discard() {
      await close();
      await unlink(partialPath).catch(() => undefined);
    },
  };
}

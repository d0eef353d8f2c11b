import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TdsError, UsageError } from '../../core/errors.js';
import type { JournalEntry, JournalHeader } from './journal-entry.js';

interface Pending {
  text: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Appends journal lines. Lines queued while a write is in progress go out together in the next
 * write and share one fsync (group commit), so four senders cost about one fsync per round.
 * A new journal is created (exclusively) on the first append, so a run that sent nothing leaves none.
 */
export class JournalWriter {
  private handle?: FileHandle;
  private queue: Pending[] = [];
  private draining?: Promise<void>;
  private failure: unknown;

  private constructor(
    readonly path: string,
    private readonly header: JournalHeader | undefined,
  ) {}

  /** A journal that does not exist yet; it is created with `header` when the first entry is appended. */
  static create(path: string, header: JournalHeader): JournalWriter {
    return new JournalWriter(path, header);
  }

  /** An existing journal (--resume): entries are appended after the ones already there. */
  static reopen(path: string): JournalWriter {
    return new JournalWriter(path, undefined);
  }

  get started(): boolean {
    return this.handle !== undefined;
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ text: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
    });
  }

  async close(): Promise<void> {
    await this.draining;
    await this.handle?.close();
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0);
      try {
        const handle = this.handle ?? (await this.openFile());
        await handle.write(group.map((pending) => pending.text).join(''));
        await handle.datasync();
        for (const pending of group) pending.resolve();
      } catch (error) {
        this.failure = journalError(this.path, error);
        for (const pending of [...group, ...this.queue.splice(0)]) pending.reject(this.failure);
      }
    }
  }

  private async openFile(): Promise<FileHandle> {
    if (!this.header) {
      this.handle = await open(this.path, 'a');
      return this.handle;
    }
    this.handle = await open(this.path, 'wx');
    await this.handle.write(`${JSON.stringify(this.header)}\n`);
    await this.handle.datasync();
    await syncDirectory(dirname(this.path));
    return this.handle;
  }
}

/** Makes the new file's directory entry durable too (not possible on every platform). */
async function syncDirectory(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open a directory; the file's own fsync is what matters most
  } finally {
    await handle?.close();
  }
}

function journalError(path: string, error: unknown): TdsError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') {
    return new UsageError(`the journal ${path} already exists`, { hint: 'run with --resume to continue that push, or remove the journal' });
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOENT') {
    return new UsageError(`cannot write the journal ${path} (${code})`, { hint: 'pass --journal FILE in a folder you can write to' });
  }
  return new TdsError('UNEXPECTED', `cannot write the journal ${path}${code ? ` (${code})` : ''}: ${(error as Error).message}`, {
    cause: error,
  });
}

import { open, utimes, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TdsError, UsageError, PRIVATE_FILE_MODE } from '../../core/index.js';
import { CONFIRMED_REASON, entryOf, type BatchRef, type CompletionLine, type JournalEntry, type JournalHeader } from './journal-format.js';
import { endsComplete, journalExists } from './journal-folder.js';

interface QueuedLine {
  text: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How the writer opens its file (tests hand in a file that fails part way). */
export type OpenFile = (path: string, flags: 'wx' | 'r+', mode?: number) => Promise<FileHandle>;

/**
 * Appends journal lines. Lines queued while a write is in progress go out together in the next
 * write and share one fsync (group commit), so four senders cost about one fsync per round.
 * A new journal is created (exclusively) on the first append, so a run that sent nothing leaves none.
 * A write that does not complete (a full disk) fails the lines it carried and is cut back off the
 * file, so a torn line is never followed by more; a journal found ending in a torn line (a crash
 * mid-write) is cut back to its last whole line before anything is appended.
 */
export class JournalWriter {
  private handle?: FileHandle;
  /** Bytes of whole lines in the file: where the next write goes. */
  private size = 0;
  private queue: QueuedLine[] = [];
  private draining?: Promise<void>;
  private failure: unknown;

  private constructor(
    readonly path: string,
    /** the first line of a new file: a journal's header (or the webhook ledger's, which writes the same way) */
    private readonly header: JournalHeader | object | undefined,
    private readonly openFile: OpenFile,
  ) {}

  /** A journal that does not exist yet; it is created with `header` when the first entry is appended. */
  static create(path: string, header: JournalHeader | object, openFile: OpenFile = open): JournalWriter {
    return new JournalWriter(path, header, openFile);
  }

  /** An existing journal (--resume): entries are appended after the ones already there. */
  static reopen(path: string, openFile: OpenFile = open): JournalWriter {
    return new JournalWriter(path, undefined, openFile);
  }

  get started(): boolean {
    return this.handle !== undefined;
  }

  append(entry: JournalEntry | CompletionLine): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ text: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  async close(): Promise<void> {
    await this.draining;
    await this.handle?.close();
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0);
        try {
          const handle = this.handle ?? (await this.start());
          await this.writeLines(handle, group.map((line) => line.text).join(''));
          for (const line of group) line.resolve();
        } catch (error) {
          this.failure = journalError(this.path, error);
          for (const line of [...group, ...this.queue.splice(0)]) line.reject(this.failure);
        }
      }
    } finally {
      // cleared at once (not in a later .finally), so a line appended by a caller woken by this round starts the next one
      this.draining = undefined;
    }
  }

  /** Writes whole lines at the end and syncs them; on any failure the file is cut back to where it was. */
  private async writeLines(handle: FileHandle, text: string): Promise<void> {
    const bytes = Buffer.from(text);
    try {
      for (let done = 0; done < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, this.size + done);
        if (bytesWritten <= 0) throw Object.assign(new Error('the write made no progress'), { code: 'ENOSPC' });
        done += bytesWritten;
      }
      await handle.datasync();
    } catch (error) {
      await handle.truncate(this.size).catch(() => undefined);
      throw error;
    }
    this.size += bytes.length;
  }

  private async start(): Promise<FileHandle> {
    if (!this.header) {
      const handle = await this.openFile(this.path, 'r+');
      this.size = await wholeLines(handle);
      this.handle = handle;
      return handle;
    }
    const handle = await this.openFile(this.path, 'wx', PRIVATE_FILE_MODE);
    this.handle = handle;
    await this.writeLines(handle, `${JSON.stringify(this.header)}\n`);
    await syncDirectory(dirname(this.path));
    return handle;
  }
}

/** The length of the file's whole lines, after cutting off a torn last line (a crash mid-write) if there is one. */
async function wholeLines(handle: FileHandle): Promise<number> {
  const { size } = await handle.stat();
  const tail = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const from = Math.max(0, end - tail.length);
    await handle.read(tail, 0, end - from, from);
    const newline = tail.subarray(0, end - from).lastIndexOf(0x0a);
    if (newline >= 0) {
      end = from + newline + 1;
      break;
    }
    end = from;
  }
  if (end < size) await handle.truncate(end);
  return end;
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
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    // no request leaves before its line is written, so nothing was sent unrecorded
    return new TdsError('UNEXPECTED', `cannot write the journal ${path}: the disk is full (${code})`, {
      cause: error,
      hint:
        'free some space, then run the same command with --resume: a batch whose request had not left is sent then, ' +
        'and one whose answer could not be recorded shows as uncertain',
    });
  }
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

/** Records uncertain batches the user found in the table (--accept-uncertain) as accepted, when nothing else is sent. */
export async function journalConfirmed(path: string, batches: readonly BatchRef[]): Promise<void> {
  const journal = JournalWriter.reopen(path);
  try {
    for (const batch of batches) await journal.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON }));
  } finally {
    await journal.close();
  }
}

/**
 * Records that the push of this journal completed (journal-folder.ts removes such a journal once untouched
 * for JOURNAL_KEEP_DAYS): a completion line, or, when the journal already ends with one, a new modification time.
 */
export async function journalCompleted(path: string): Promise<void> {
  if (!(await journalExists(path))) return;
  if (await endsComplete(path)) {
    const now = new Date();
    return utimes(path, now, now);
  }
  const journal = JournalWriter.reopen(path);
  try {
    await journal.append({ complete: true, at: new Date().toISOString() });
  } finally {
    await journal.close();
  }
}

import { open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TdsError, UsageError } from '../cli/errors.js';
import type { InputFormat } from './input-format.js';

// The push journal: JSON lines, a header and then one line per batch state change, each written and
// fsynced before the step it records goes on (before a POST starts, after its outcome is known).

export const JOURNAL_VERSION = 1;

export type BatchState = 'sending' | 'accepted' | 'uncertain' | 'rejected' | 'split' | 'unsent';

export interface JournalHeader {
  journal: 'tds push';
  version: number;
  createdAt: string;
  input: { path: string; format: InputFormat; bytes?: number; sha256?: string };
  /** everything that decides where batches start and end */
  batching: { batchSize: number; maxBytes: number; types: 'strings' | 'infer'; nest: string | null; relaxColumns: boolean };
  webhook: { shown: string; sha256: string };
}

export interface JournalEntry {
  batch: number;
  /** the half of a batch a 413 made: '1', '2', '1.2', … */
  part?: string;
  first: number;
  last: number;
  count: number;
  bytes: number;
  sha256: string;
  state: BatchState;
  status?: number;
  /** why a batch was rejected, uncertain or not sent (service message, network error) */
  reason?: string;
  at: string;
}

export interface JournalContents {
  header: JournalHeader;
  entries: JournalEntry[];
}

/** Reads a journal; a torn last line (a crash mid-write) is ignored, any other bad line is an error. */
export async function readJournal(path: string): Promise<JournalContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the journal ${path}${code ? ` (${code})` : ''}`, {
      hint: code === 'ENOENT' ? 'without a journal there is nothing to resume: run without --resume' : undefined,
    });
  }
  const lines = text.split('\n');
  const parsed: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      parsed.push(JSON.parse(line));
    } catch {
      const last = index === lines.length - 1 || lines.slice(index + 1).every((rest) => rest.trim() === '');
      if (!last) throw new UsageError(`the journal ${path} is damaged at line ${index + 1}`);
    }
  });
  const [header, ...entries] = parsed as [JournalHeader | undefined, ...JournalEntry[]];
  if (header?.journal !== 'tds push' || header.version !== JOURNAL_VERSION) {
    throw new UsageError(`${path} is not a tds push journal (version ${JOURNAL_VERSION})`);
  }
  if (!entries.every((entry) => typeof entry?.batch === 'number' && typeof entry.state === 'string')) {
    throw new UsageError(`the journal ${path} has a line that is not a batch record`);
  }
  return { header, entries };
}

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

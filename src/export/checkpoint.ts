import { randomBytes } from 'node:crypto';
import { open, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../core/errors.js';
import { PRIVATE_FILE_MODE } from '../core/private-files.js';
import { asWriteError } from '../output/write-error.js';
import type { TallyJSON } from '../records/truncation-tally.js';
import type { ExportFingerprint } from './fingerprint.js';

const VERSION = 1;

/** Where an export to `-o FILE` stands: written beside it as `FILE.tds-checkpoint` after each page. */
export interface Checkpoint {
  version: number;
  fingerprint: ExportFingerprint;
  /** Field IDs given `.status`/`.error` keys, fixed by the first page (see statusFieldIds). */
  statusFields: string[];
  /** The `nextCursor` of the last page fully written; null before the first page or after the last. */
  cursor: string | null;
  /** The last page has been written: only the end of the output is missing. */
  done: boolean;
  rows: number;
  /**
   * Bytes of `FILE.partial` that hold those rows (the file is cut back to this on resume); for Parquet,
   * the rows of the staging file that hold them (the staging file is cut back to as many).
   */
  bytes: number;
  /** IDs of the last page written, so a row repeated across the boundary is still dropped. */
  lastPageIds: string[];
  duplicates: number;
  truncated: TallyJSON;
  /** Parquet: values that did not fit their column's type, per column key (absent when none). */
  unfit?: Record<string, number>;
}

export type CheckpointState = Omit<Checkpoint, 'version'>;

export function checkpointPath(output: string): string {
  return `${output}.tds-checkpoint`;
}

/** The checkpoint at `path`, or undefined when there is none; an unreadable one is a usage error. */
export async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  let parsed: Partial<Checkpoint> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<Checkpoint>;
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.version !== VERSION || typeof parsed.bytes !== 'number' || typeof parsed.rows !== 'number') {
    throw new UsageError(`the checkpoint ${path} is not one this version of tds can read`, {
      hint: 'start the export over with --restart',
    });
  }
  return parsed as Checkpoint;
}

/**
 * Removes the temporary files of checkpoint writes that a killed run left beside `path` (call it only
 * while holding the output's lock: no other run is writing them then).
 */
export async function removeStaleTemporaries(path: string): Promise<void> {
  const prefix = `${basename(path)}.tmp`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix)).map((name) => unlink(join(dirname(path), name)).catch(() => undefined)),
  );
}

/** How often the checkpoint is fsynced (with the data file first), and the least time between two writes. */
export interface CheckpointTiming {
  syncEveryMs?: number;
  minGapMs?: number;
}

/**
 * Writes the checkpoint after each page without holding the export up: one write at a time, at
 * most one every `minGapMs` (so pages paced by the service's limit, one a second at most, are each
 * checkpointed, while a fast unlimited export does not spend its time renaming files), and a page
 * that completes meanwhile just replaces what the next write will hold. Each write goes to a
 * temporary file renamed over the checkpoint, so it is never half written. At most about once a
 * second (and on flush) the data file and the checkpoint are also fsynced, in that order, so that
 * 10,000 pages do not cost 10,000 fsyncs. A checkpoint that lags is still exact: it counts the
 * bytes of the pages it names, and resume cuts the file back to them.
 */
export class CheckpointWriter {
  private pending: CheckpointState | undefined;
  private latest: CheckpointState | undefined;
  private running: Promise<void> | undefined;
  private lastSync = Date.now();
  private lastWrite = 0;
  private failure: unknown;
  /** Each writer its own temporary file, so that no two writers can ever rename each other's. */
  private readonly temporary: string;
  private readonly syncEveryMs: number;
  private readonly minGapMs: number;
  /** The checkpoint the file holds: a resumed export's at first, then each one saved. */
  private saved: CheckpointState | undefined;

  constructor(
    private readonly path: string,
    private readonly syncData: () => Promise<void>,
    options: CheckpointTiming & { saved?: CheckpointState } = {},
  ) {
    this.temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.syncEveryMs = options.syncEveryMs ?? 1000;
    this.minGapMs = options.minGapMs ?? 100;
    this.saved = options.saved;
  }

  /** The state the checkpoint file holds, as far as this writer knows: what a resume would continue from. */
  get onDisk(): CheckpointState | undefined {
    return this.saved;
  }

  /** Records the state after a page; it is written soon, in the background. A failed earlier write throws here. */
  update(state: CheckpointState): void {
    if (this.failure) throw this.failure;
    this.pending = state;
    this.latest = state;
    this.running ??= this.drain();
  }

  /** Waits until the latest state is on disk, synced after the data file. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
    if (this.latest) await this.save(this.latest, true);
  }

  /** Removes the checkpoint (the export is complete, or starts over). */
  async remove(): Promise<void> {
    while (this.running) await this.running;
    this.pending = undefined;
    this.latest = undefined;
    await unlink(this.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    this.saved = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending) {
        const wait = this.lastWrite + this.minGapMs - Date.now();
        if (wait > 0) await sleep(wait);
        const state = this.pending;
        if (!state) break;
        this.pending = undefined;
        const sync = Date.now() - this.lastSync >= this.syncEveryMs;
        await this.save(state, sync);
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.running = undefined;
    }
  }

  /** A write that fails (a full disk) is an OutputWriteError naming the checkpoint; the file keeps the state before. */
  private async save(state: CheckpointState, sync: boolean): Promise<void> {
    const text = `${JSON.stringify({ version: VERSION, ...state })}\n`;
    const { temporary } = this;
    try {
      if (sync) {
        await this.syncData();
        const handle = await open(temporary, 'w', PRIVATE_FILE_MODE);
        try {
          await handle.writeFile(text);
          await handle.sync();
        } finally {
          await handle.close();
        }
        this.lastSync = Date.now();
      } else {
        await writeFile(temporary, text, { mode: PRIVATE_FILE_MODE });
      }
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw asWriteError(this.path, error);
    }
    this.saved = state;
    this.lastWrite = Date.now();
  }
}

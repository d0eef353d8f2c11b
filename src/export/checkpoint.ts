import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError, PRIVATE_FILE_MODE } from '../core/index.js';
import { type ExportFormat, asWriteError } from '../output/index.js';
import { planRecord, type ShapeOptions, TruncationTally, type TallyJSON } from '../records/index.js';
import type { FilterGroup } from '../service/index.js';
import type { ExportRequest } from './export-request.js';
import { parquetColumns } from './parquet-columns.js';

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
 * most one every `minGapMs` (so pages spaced by the service's limit, one a second at most, are each
 * checkpointed, while a fast unlimited export does not spend its time renaming files), and a page
 * that completes meanwhile just replaces what the next write will hold. Each write goes to a
 * temporary file renamed over the checkpoint, so it is never half written. At most about once a
 * second (and on flush) the data file and the checkpoint are also fsynced, in that order, so that
 * 10,000 pages do not cost 10,000 fsyncs. A checkpoint that lags is still exact: it counts the
 * bytes of the pages it names, and resume cuts the file back to them.
 */
export class CheckpointWriter {
  private unsaved: CheckpointState | undefined;
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
    this.unsaved = state;
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
    this.unsaved = undefined;
    this.latest = undefined;
    await unlink(this.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    this.saved = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.unsaved) {
        const wait = this.lastWrite + this.minGapMs - Date.now();
        if (wait > 0) await sleep(wait);
        const state = this.unsaved;
        if (!state) break;
        this.unsaved = undefined;
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

/**
 * What must be the same for a resumed export to continue the partial file: the query (table,
 * endpoint, search text, filters), the record shape (flags and the columns they resolved to), and
 * the output format with its CSV options. Page size and --limit may change between runs.
 */
export interface ExportFingerprint {
  tableId: string;
  endpoint: 'rows' | 'query';
  search: string;
  filters: FilterGroup | null;
  /** the run-state tests made here (absent when none: checkpoints from before them match) */
  tested?: string;
  shape: ShapeOptions;
  /** `fieldId=key` of each column written, in order (changes when the table's columns change). */
  columns: string[];
  format: ExportFormat;
  csv: {
    bom: boolean;
    crlf: boolean;
    join: string | null;
    safeFormulas: boolean;
    maxCellChars: number | null;
    /** present only when set, so that checkpoints from before them match */
    delimiter?: string;
    decimalComma?: true;
    spreadsheet?: true;
  };
}

/** What a fingerprint is taken of: the query, the record shape, and the format with its CSV options. */
export type FingerprintOf = Pick<ExportRequest, 'table' | 'endpoint' | 'search' | 'filters' | 'fields' | 'format' | 'csv' | 'shape'> &
  Partial<Pick<ExportRequest, 'local'>>;

export function exportFingerprint(request: FingerprintOf): ExportFingerprint {
  const { csv } = request;
  return {
    tableId: request.table.id,
    endpoint: request.endpoint,
    search: request.search,
    filters: request.filters ?? null,
    ...(request.local ? { tested: request.local.text } : {}),
    shape: request.shape,
    columns: columnsWritten(request),
    format: request.format,
    csv: {
      bom: csv.bom,
      crlf: csv.crlf,
      join: csv.join ?? null,
      safeFormulas: csv.safeFormulas,
      maxCellChars: csv.maxCellChars ?? null,
      ...(csv.delimiter !== undefined ? { delimiter: csv.delimiter } : {}),
      ...(csv.decimalComma ? { decimalComma: true as const } : {}),
      ...(csv.spreadsheet ? { spreadsheet: true as const } : {}),
    },
  };
}

/** `fieldId=key` of each column written (Parquet: each typed column, its type too). */
function columnsWritten(request: FingerprintOf): string[] {
  if (request.format === 'parquet') {
    return parquetColumns(request.fields, request.shape).map((column) => `${column.field?.id ?? column.role}=${column.key}:${column.type}`);
  }
  return planRecord(request.fields, request.shape).columns.map((column) => `${column.field.id}=${column.key}`);
}

const WHAT: Record<keyof ExportFingerprint, string> = {
  tableId: 'the table',
  endpoint: 'the command (rows or query)',
  search: 'the search text (-q)',
  filters: 'the filters (--where/--filter)',
  tested: 'the run-state tests (--where COL.status)',
  shape: 'the record options (--header, --columns, --no-meta, --no-system, --cells, --status-columns)',
  columns: "the table's columns (changed since the export began)",
  format: 'the output format',
  csv: 'the CSV options (--bom, --excel, --join, --delimiter, --safe-formulas)',
};

/** What differs between the fingerprint in a checkpoint and the current one, for the message; empty when they match. */
export function fingerprintDifferences(saved: ExportFingerprint, current: ExportFingerprint): string[] {
  return (Object.keys(WHAT) as Array<keyof ExportFingerprint>)
    .filter((member) => canonical(saved[member]) !== canonical(current[member]))
    .map((member) => WHAT[member]);
}

/** JSON text with object keys sorted, so equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
    ) ?? 'undefined'
  );
}

/** How far an export has come: what a checkpoint saves after each page. */
export class ExportState {
  rows = 0;
  bytes = 0;
  /** The `nextCursor` after the last page written. */
  cursor: string | null = null;
  done = false;
  duplicates = 0;
  lastPageIds: string[] = [];
  tally = new TruncationTally();
  /** Parquet: values that did not fit their column's type (written as NULL), per column key. */
  unfit = new Map<string, number>();
  /** Fixed by the first page (or the checkpoint); undefined until then. */
  statusFields: string[] | undefined;

  static resume(checkpoint: Checkpoint): ExportState {
    const state = new ExportState();
    state.rows = checkpoint.rows;
    state.bytes = checkpoint.bytes;
    state.cursor = checkpoint.cursor;
    state.done = checkpoint.done;
    state.duplicates = checkpoint.duplicates;
    state.lastPageIds = checkpoint.lastPageIds;
    state.tally = TruncationTally.fromJSON(checkpoint.truncated);
    state.statusFields = checkpoint.statusFields;
    state.unfit = new Map(Object.entries(checkpoint.unfit ?? {}));
    return state;
  }

  toCheckpoint(fingerprint: ExportFingerprint): CheckpointState {
    return {
      fingerprint,
      statusFields: this.statusFields ?? [],
      cursor: this.cursor,
      done: this.done,
      rows: this.rows,
      bytes: this.bytes,
      lastPageIds: this.lastPageIds,
      duplicates: this.duplicates,
      truncated: this.tally.toJSON(),
      ...(this.unfit.size > 0 ? { unfit: Object.fromEntries(this.unfit) } : {}),
    };
  }
}

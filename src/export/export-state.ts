import { TruncationTally } from '../records/truncation-tally.js';
import type { Checkpoint, CheckpointState } from './checkpoint.js';
import type { ExportFingerprint } from './fingerprint.js';

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

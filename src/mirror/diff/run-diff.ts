import type { Context } from '../../core/context.js';
import { createAtomicFile, claimOutput } from '../../output/atomic-file.js';
import type { Format } from '../../output/format.js';
import { openMirror, waitOn } from '../mirror-db.js';
import { openDiff, type DiffRequest } from './open-diff.js';
import type { DiffRecord } from './table-diff.js';
import { summaryReport, writeDiffRecords, writeDiffSummary } from './write-diff.js';

export interface DiffCommandRequest extends DiffRequest {
  db: string;
  format: Format;
  /** -o FILE (written atomically); stdout when undefined */
  output?: string;
  summary: boolean;
}

/** DuckDB's buffer pool for a diff: the join of two snapshots spills beside the mirror past it. */
const MEMORY_LIMIT = '128MB';

/** `tds diff`: the mirror opened read-only, the table compared at two moments, written to stdout or -o FILE. */
export async function runDiff(ctx: Context, request: DiffCommandRequest): Promise<void> {
  const db = await openMirror(request.db, { readOnly: true, memoryLimit: MEMORY_LIMIT, ...waitOn(ctx) });
  try {
    const opened = await openDiff(db, request);
    const lock = request.output ? await claimOutput(request.output, 'another tds command') : undefined;
    try {
      const file = request.output ? await createAtomicFile(request.output, { fresh: true }) : undefined;
      const sink = file?.stream ?? ctx.io.stdout;
      try {
        if (request.summary) {
          const { counts, keys } = await opened.diff.summary();
          await writeDiffSummary(sink, summaryReport(opened, counts, keys), request.format);
        } else {
          const count = await writeDiffRecords(ctx, sink, interruptible(ctx, opened.diff.records()), {
            format: request.format,
            toFile: Boolean(file),
          });
          ctx.io.stderr.write(
            `${opened.mirrorTable}: ${count.toLocaleString('en-US')} ${count === 1 ? 'row differs' : 'rows differ'} between ${opened.since.label} and ${opened.until.label}; ${verifiedText(opened.verifiedAt)}\n`,
          );
        }
        await file?.commit();
      } catch (error) {
        await file?.discard();
        throw error;
      }
    } finally {
      await lock?.release();
    }
  } finally {
    db.close();
  }
}

/** The records until Ctrl-C (between two records, never within one). */
async function* interruptible(ctx: Context, records: AsyncIterable<DiffRecord>): AsyncGenerator<DiffRecord> {
  for await (const record of records) {
    ctx.signal.throwIfAborted();
    yield record;
  }
}

/** When the mirror table was last exact (see Freshness in the README). */
export function verifiedText(verifiedAt: string | null): string {
  return verifiedAt === null ? 'not verified by a pass over every row yet' : `exact as of ${verifiedAt} (its last pass over every row)`;
}

import { type Context, TdsError, UsageError } from '../core/index.js';
import type { OutputWriteError } from '../output/index.js';
import type { TruncationTally } from '../records/index.js';
import type { ExportState } from './checkpoint.js';
import type { CsvOptions, ExportRequest } from './export-request.js';

const count = (n: number): string => n.toLocaleString('en-US');

/** What the cut-cell report follows: --on-truncated, the file named in its error, and --excel's cell limit. */
export type TruncationPolicy = Pick<ExportRequest, 'onTruncated' | 'output'> & { csv: Pick<CsvOptions, 'maxCellChars'> };

/** The cut-cell warning at the end of an export; with --on-truncated error, the error to exit 8 with. */
export function reportTruncation(ctx: Context, tally: TruncationTally, request: TruncationPolicy): TdsError | undefined {
  const fail = request.onTruncated === 'error';
  const label = fail ? ctx.io.color.red('tds:') : ctx.io.color.yellow('tds: warning:');
  for (const line of tally.summary(request.csv.maxCellChars ?? 0)) ctx.io.stderr.write(`${label} ${line}\n`);
  if (!fail) return undefined;
  const kept = request.output ? `; the output is left in ${request.output}.partial` : '';
  return new TdsError('TRUNCATED', `${count(tally.total)} cut ${tally.total === 1 ? 'cell' : 'cells'} and --on-truncated error${kept}`, {
    hint: 'the service cuts cell values at 200 characters in row responses; --on-truncated warn keeps the cut text',
  });
}

/** Parquet: the values written as NULL because they did not fit their column's type, per column (a warning, never a failure). */
export function reportUnfit(ctx: Context, unfit: ReadonlyMap<string, number>): void {
  const entries = [...unfit].sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return;
  const perColumn = entries.map(([key, n]) => `${JSON.stringify(key)} ${count(n)}`).join(', ');
  ctx.io.stderr.write(
    `${ctx.io.color.yellow('tds: warning:')} ${count(total)} ${total === 1 ? 'value does' : 'values do'} not fit the column's type and ${total === 1 ? 'was' : 'were'} written as NULL: ${perColumn}\n`,
  );
}

export interface StopReport {
  error: unknown;
  state: ExportState;
  partialPath: string;
  checkpointPath: string;
  /** The cursor a resumed export started from, and how many pages this run fetched. */
  resumedCursor: string | undefined;
  pages: number;
}

/**
 * An export to a file stopped before the end (interrupt, retries exhausted, a refused request):
 * the partial file and checkpoint are kept; the user is told how to continue. Returns the error
 * to throw (an interrupt is left for main.ts, which prints it and exits 130).
 */
export function reportStop(ctx: Context, report: StopReport): unknown {
  const { error, state } = report;
  if (report.resumedCursor !== undefined && report.pages === 0 && error instanceof TdsError && error.status === 400) {
    return new UsageError(`cannot resume: the service no longer accepts the saved cursor: ${error.message}`, {
      hint: 'cursors do not last for ever; start the export over with --restart',
    });
  }
  const kept = `${report.partialPath} and ${report.checkpointPath} are kept`;
  const how = 'run the same command again with --resume to continue where it stopped';
  if (ctx.signal.aborted) {
    return new TdsError('INTERRUPTED', `the export stopped after ${count(state.rows)} rows; ${kept}`, { hint: how });
  }
  if (!(error instanceof TdsError)) {
    ctx.io.stderr.write(`tds: the export stopped after ${count(state.rows)} rows; ${kept}\nhint: ${how}\n`);
    return error;
  }
  return new TdsError(error.code, error.message, {
    ...(error.status !== undefined ? { status: error.status } : {}),
    cause: error,
    ...(error.reason ? { reason: error.reason } : {}),
    hint: `${error.hint ? `${error.hint}; ` : ''}${count(state.rows)} rows are in ${report.partialPath}: ${how}`,
  });
}

/** Codes of a disk that is full or a file that may not grow: "room" is what is missing. */
const NO_ROOM = ['ENOSPC', 'EDQUOT', 'EFBIG'];

/** A refused write of an export to a file, with what was kept and how to go on. */
export function writeFailure(error: OutputWriteError, kept: { rows: number; partialPath: string } | undefined): OutputWriteError {
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  const when = NO_ROOM.includes(code) ? 'once there is room' : 'once it can be written again';
  if (!kept) return error.withHint(`nothing was kept; ${when}, run the command again`);
  return error.withHint(
    `${count(kept.rows)} rows are kept in ${kept.partialPath}; ${when}, run the same command again with --resume to continue from there`,
  );
}

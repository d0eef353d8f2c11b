import type { Context } from '../core/context.js';
import type { Row } from '../service/index.js';
import type { ExportPacing, ExportSource, FetchPage } from './export-request.js';
import { ExportState } from './export-state.js';
import { follow, type Known } from './follow.js';
import { reportTruncation, type TruncationPolicy } from './report.js';

/** What following a table after its export uses: where to poll and how often, and how the rows are written. */
export interface FollowExport {
  source: Pick<ExportSource, 'table' | 'pageSize'> & { follow: { everyMs: number } } & ExportPacing;
  policy: TruncationPolicy;
  /** The rows the export wrote. */
  known: Known;
  /** Writes rows in the export's format, counted in `into`. */
  write(rows: Row[], into: ExportState): Promise<void>;
}

/** --follow: the rows created after the export, until Ctrl-C; returns how many were written. */
export async function followNewRows(ctx: Context, fetchPage: FetchPage, run: FollowExport): Promise<number> {
  const { table, pageSize, rowWindow } = run.source;
  const asked = run.source.follow.everyMs;
  const everyMs = Math.max(asked, rowWindow.perMs / rowWindow.requests);
  if (everyMs > asked) {
    ctx.io.stderr.write(
      `tds: polling every ${(everyMs / 1000).toLocaleString('en-US')}s, not more often: the service allows ${rowWindow.requests} row reads a minute\n`,
    );
  }
  if (ctx.io.stderrIsTTY)
    ctx.io.stderr.write(`tds: following ${table.name} for new rows every ${(everyMs / 1000).toLocaleString('en-US')}s (Ctrl-C to stop)\n`);
  // The rows written while following, and their cut cells, reported at the end as the export's are.
  const followed = new ExportState();
  const count = await follow(ctx, fetchPage, run.known, { everyMs, pageSize, write: (rows) => run.write(rows, followed) });
  if (followed.tally.total > 0) {
    const failure = reportTruncation(ctx, followed.tally, run.policy);
    if (failure) throw failure;
  }
  return count;
}

import { access } from 'node:fs/promises';
import type { Context } from '../core/context.js';
import { TdsError } from '../core/errors.js';
import { openMirror, waitOn } from '../mirror/mirror-db.js';
import { writeWhole } from '../output/table.js';
import { statsText, type StatsFormat } from './stats-output.js';
import { tableStats } from './table-stats.js';

export interface StatsRequest {
  /** TABLE: an ID, an exact name or a mirror table's name. */
  table: string;
  db: string;
  columns?: string[];
  top: number;
  format: StatsFormat;
  /** -o FILE; stdout when undefined */
  output?: string;
}

/**
 * DuckDB's buffer pool for the profile. The GROUP BYs of columns of a million different values keep
 * the process near 220 MB with it (a larger pool holds more, no faster: 250 MB at 160 MB, same time);
 * DuckDB spills beside the mirror if a statement needs more.
 */
const MEMORY_LIMIT = '100MB';

/** `tds stats` on the mirror as it is (the command syncs first unless --no-sync): the figures, printed or written to -o FILE. */
export async function runStats(ctx: Context, request: StatsRequest): Promise<void> {
  const exists = await access(request.db).then(
    () => true,
    () => false,
  );
  if (!exists) {
    throw new TdsError('NOT_FOUND', `there is no mirror ${request.db}`, {
      hint: `make it with \`tds sync TABLE --db ${request.db}\`, or leave out --no-sync and \`tds stats\` syncs the table first`,
    });
  }
  const db = await openMirror(request.db, { readOnly: true, memoryLimit: MEMORY_LIMIT, ...waitOn(ctx) });
  let text: string;
  try {
    const stats = await tableStats(db.connection, {
      table: request.table,
      db: request.db,
      top: request.top,
      ...(request.columns ? { columns: request.columns } : {}),
    });
    text = statsText(ctx, stats, request.format, request.output !== undefined);
  } finally {
    db.close();
  }
  await writeText(ctx, text, request.output);
}

/** To stdout, or to FILE atomically. */
async function writeText(ctx: Context, text: string, output: string | undefined): Promise<void> {
  await writeWhole(ctx, () => Buffer.from(text), output);
  if (output !== undefined) ctx.io.stderr.write(`stats written to ${output}\n`);
}

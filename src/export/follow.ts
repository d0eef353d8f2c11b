import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../core/context.js';
import type { HashedStringSet } from '../collections/hashed-string-set.js';
import { paginate } from '../http/paginate.js';
import type { Row } from '../service/index.js';
import type { FetchPage } from './export-request.js';

// `tds rows TABLE --follow`: after the export, the newest page is read every --every seconds and the
// rows created since are written. Without a search, the service lists rows newest first, so the rows
// not yet written are at the head of the list: pages are read from the newest until a row that was
// written already (or one created before the newest written), which for an idle table is one request.

/** What the follow knows of the rows written so far. */
export interface Known {
  /** IDs of the rows written (and of the rows read past -n): never written again. */
  seen: HashedStringSet;
  /** The creation time (ms) of the newest row written; rows created before it are not new. Undefined before the first. */
  newestMs: number | undefined;
}

/**
 * The rows created since the last look, oldest first (so the output grows in creation order).
 * Pages of `pageSize` are read newest first until a known row, a row created before the newest known
 * one, or the end of the table: a burst of more than a page is read completely.
 */
export async function newRowsSince(fetchPage: FetchPage, known: Known, pageSize: number, signal?: AbortSignal): Promise<Row[]> {
  const found: Row[] = [];
  const ids = new Set<string>();
  const pages = paginate((cursor, onBody) => fetchPage(cursor, pageSize, onBody), { ahead: 0, ...(signal ? { signal } : {}) });
  walk: for await (const { page } of pages) {
    for (const row of page.rows) {
      if (known.seen.has(row.id) || createdBefore(row, known.newestMs)) break walk;
      if (!ids.has(row.id)) found.push(row);
      ids.add(row.id);
    }
  }
  return found.reverse();
}

function createdBefore(row: Row, newestMs: number | undefined): boolean {
  if (newestMs === undefined) return false;
  const created = Date.parse(row.createdAt);
  return Number.isFinite(created) && created < newestMs;
}

/** Adds written rows to what the follow knows. */
export function remember(known: Known, rows: readonly Row[]): void {
  for (const row of rows) {
    known.seen.add(row.id);
    const created = Date.parse(row.createdAt);
    if (Number.isFinite(created) && (known.newestMs === undefined || created > known.newestMs)) known.newestMs = created;
  }
}

export interface FollowOptions {
  everyMs: number;
  pageSize: number;
  /** Writes rows (oldest first) to the output, in the export's format. */
  write(rows: Row[]): Promise<void>;
}

/**
 * Polls until Ctrl-C (the context's signal), which ends the follow normally: whatever was found
 * has been written, and a poll cut short had written nothing yet. Polls start `everyMs` apart (a
 * burst that takes longer starts the next one at once). Returns the rows written.
 */
export async function follow(ctx: Context, fetchPage: FetchPage, known: Known, options: FollowOptions): Promise<number> {
  let written = 0;
  let next = Date.now() + options.everyMs;
  while (!ctx.signal.aborted) {
    try {
      await sleep(Math.max(0, next - Date.now()), undefined, { signal: ctx.signal });
      next = Date.now() + options.everyMs;
      const rows = await newRowsSince(fetchPage, known, options.pageSize, ctx.signal);
      if (rows.length === 0) continue;
      await options.write(rows);
      remember(known, rows);
      written += rows.length;
      ctx.verbose(`tds: ${rows.length} new ${rows.length === 1 ? 'row' : 'rows'} (${written} while following)`);
    } catch (error) {
      if (ctx.signal.aborted) break;
      throw error;
    }
  }
  return written;
}

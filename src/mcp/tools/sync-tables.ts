import { z } from 'zod';
import { TdsError } from '../../core/index.js';
import { type Session, staleSchema } from '../session.js';
import { defineTool, type Tool, type ToolCall, type ProgressUpdate } from '../tool.js';
import type { SyncProgress, SyncSummary } from '../../mirror/index.js';
import type { Table } from '../../service/index.js';

const tableResult = z.object({
  tableId: z.string(),
  name: z.string(),
  mirrorTable: z.string(),
  syncId: z.number().describe("the sync's ID (`sync:N` for diff_table; the `_syncId` of the versions it wrote)"),
  mode: z.string().describe('full (every row read; rows gone deleted) or incremental (only rows created since the last sync)'),
  complete: z.boolean(),
  requests: z.number(),
  rowsRead: z.number(),
  inserted: z.number(),
  updated: z.number(),
  deleted: z.number(),
  unfit: z.number().describe('values that did not fit their column type (kept as NULL)'),
  pruned: z.number().nullable().describe('versions of the history dropped (null: no pruning was asked)'),
  missing: z
    .number()
    .describe('rows the service lists that the mirror still lacks after reading every page (0: none; else the sync fails)'),
  seconds: z.number(),
  verifiedAt: z.string().nullable().describe('the mirror is exact as of this moment (its last pass over every row); null: not yet'),
  ...staleSchema,
});

const input = z
  .object({
    tables: z
      .array(z.string().min(1))
      .max(100)
      .optional()
      .describe('table IDs, exact names or mirror table names; left out: the tables already in the mirror'),
    full: z.boolean().optional().describe('read every row again (updates anywhere, deletions)'),
  })
  .strict();

export function syncTablesTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'sync_tables',
    title: 'Sync tables into the mirror',
    description: [
      'Brings tables into the local DuckDB mirror (needs the API key), or the tables already mirrored when `tables` is',
      'left out. The first sync of a table reads every row; later ones only the rows created since (fast, a request per',
      '100 rows); `full: true` reads every row again and deletes the rows the service no longer has. Row reads are spaced',
      "at the organization's limit (60 requests, 6,000 rows, a minute): a large table's first sync takes minutes, told",
      'by progress notifications when you send a progress token. Returns a summary per table (mirror table name for',
      'query_sql, rows read, inserted, updated, deleted; verifiedAt and whether it is stale). One sync at a time; interrupted, it leaves the mirror',
      'consistent and the next sync continues where it stopped.',
    ].join(' '),
    input,
    output: z.object({ db: z.string(), tables: z.array(tableResult), notes: z.array(z.string()) }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: (args, call) => sync(session, args, call),
  });
}

async function sync(session: Session, args: z.output<typeof input>, call: ToolCall): Promise<Record<string, unknown>> {
  const client = await session.service();
  const refs = args.tables ?? [];
  const ids = refs.length === 0 ? [] : await tableIds(session, refs);
  const what = refs.length === 0 ? 'the mirrored tables' : refs.join(', ');
  const { ctx } = call.call;
  // the sync's code is loaded by the first sync
  const { runSync } = await import('../../mirror/sync-run.js');
  await session.mirror.write(what, async () => {
    try {
      await runSync(ctx, client, {
        tables: ids,
        workspaces: [],
        all: false,
        db: session.mirror.path,
        full: Boolean(args.full),
        json: true,
        progress: (tables) => syncNotifier(tables, call.progress, (text) => void ctx.io.stderr.write(`${text}\n`)),
      });
    } catch (error) {
      if (!call.signal.aborted) throw error;
      throw new TdsError('INTERRUPTED', 'the sync was interrupted', {
        hint: 'the mirror is consistent: the next sync_tables continues where this one stopped',
      });
    }
  });
  const summary = JSON.parse(call.call.stdout()) as SyncSummary;
  return { ...summary, notes: call.call.notes() };
}

/** The IDs of the tables named (mirror table names too), so the sync finds each as the agent meant it. */
async function tableIds(session: Session, refs: string[]): Promise<string[]> {
  const { tables } = await (await session.service()).tables();
  const { serviceTable } = await import('../catalog.js');
  const ids: string[] = [];
  for (const ref of refs) ids.push((await serviceTable(session, tables, ref)).id);
  return ids;
}

/** At most one notification this often (a sync writes a group of pages every few hundred ms). */
const EVERY_MS = 250;

/**
 * A sync's progress as MCP progress notifications: the rows read so far in all (which only grow, as
 * the protocol asks of `progress`), and a message naming the table. Notes (schema changes) go to `note`.
 */
export function syncNotifier(tables: readonly Table[], send: (update: ProgressUpdate) => void, note: (text: string) => void): SyncProgress {
  let index = -1;
  let current: Table | undefined;
  let before = 0;
  let tableRows = 0;
  let sent = 0;
  let sentAt = 0;
  const notify = (force: boolean): void => {
    const progress = before + tableRows;
    if (progress <= sent || (!force && Date.now() - sentAt < EVERY_MS)) return;
    sent = progress;
    sentAt = Date.now();
    const rows = tableRows.toLocaleString('en-US');
    send({ progress, message: `table ${index + 1} of ${tables.length}, ${current?.name ?? ''}: ${rows} rows read` });
  };
  return {
    table(table) {
      notify(true);
      before += tableRows;
      tableRows = 0;
      index += 1;
      current = table;
    },
    page(total) {
      tableRows = total;
      notify(false);
    },
    note,
    stop: () => notify(true),
  };
}

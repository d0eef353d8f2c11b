import { z } from 'zod';
import type { Change, DiffRecord } from '../../mirror/diff/index.js';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import type { Session } from '../session.js';

const WHEN =
  'sync:N (the state after sync N; sync:-1 after the last sync, sync:-2 the one before), an ISO 8601 date-time, or a duration ago (90m, 2h, 3d)';

const input = z
  .object({
    table: z.string().min(1).describe('a table ID, exact name, or mirror table name'),
    since: z.string().min(1).max(100).optional().describe(`${WHEN}; default sync:-2 (before the last sync)`),
    until: z.string().min(1).max(100).optional().describe(`${WHEN}, or now; default now`),
  })
  .strict();

const diffRecord = z.object({
  change: z.enum(['added', 'updated', 'deleted']),
  _id: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});

export function diffTableTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'diff_table',
    title: 'What changed in a mirrored table',
    description: [
      'The `tds diff` records of a mirrored table between two moments (no request to the service; the mirror keeps',
      'every version its syncs saw): one record per row that differs, `change` (added, updated, deleted), `_id`,',
      '`before` and `after` keyed like an export (for updated rows only the keys whose values differ). `since` and',
      `\`until\` are ${WHEN}; by default, what the last sync brought. \`counts\` per change and \`row_count\` cover every row`,
      'that differs; the records are capped (truncated: true): narrow the span, or query T__history with query_sql.',
    ].join(' '),
    input,
    output: z.object({
      table: z.object({ id: z.string(), name: z.string(), mirrorTable: z.string() }),
      since: z.string(),
      until: z.string(),
      counts: z.object({ added: z.number(), updated: z.number(), deleted: z.number() }),
      records: z.array(diffRecord),
      row_count: z.number(),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, call) {
      // loaded by the first call: the server answers `initialize` without the tools' code
      const { readCatalog, requireMirrorTable } = await import('../catalog.js');
      const { state } = requireMirrorTable(await readCatalog(session), args.table);
      const { openDiff } = await import('../../mirror/diff/open-diff.js');
      const diff = await session.mirror.read(async (db) => {
        const opened = await openDiff(db, {
          table: state.tableId,
          ...(args.since ? { since: args.since } : {}),
          ...(args.until ? { until: args.until } : {}),
        });
        const records: DiffRecord[] = [];
        const counts: Record<Change, number> = { added: 0, updated: 0, deleted: 0 };
        for await (const record of opened.diff.records()) {
          call.signal.throwIfAborted();
          counts[record.change] += 1;
          // one more than a result holds: capRows then says it was cut
          if (records.length <= session.caps.maxRows) records.push(record);
        }
        return { opened, records, counts };
      });
      const total = diff.counts.added + diff.counts.updated + diff.counts.deleted;
      const { opened } = diff;
      return capRows(diff.records, session.caps, (records, cutBy) => ({
        table: { id: opened.tableId, name: opened.name, mirrorTable: opened.mirrorTable },
        since: opened.since.label,
        until: opened.until.label,
        counts: diff.counts,
        records,
        row_count: total,
        ...truncation(
          { cutBy, kept: records.length, total },
          session.caps,
          `narrow the span (since, until), or query ${opened.mirrorTable}__history with query_sql`,
        ),
      })).result;
    },
  });
}

import { z } from 'zod';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import type { Session } from '../session.js';

const input = z
  .object({
    table: z.string().min(1).describe('a table ID, exact name, or mirror table name'),
    columns: z
      .array(z.string().min(1))
      .min(1)
      .max(500)
      .optional()
      .describe('only these columns, in this order: keys, labels, names or field IDs'),
  })
  .strict();

export function tableStatsTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'table_stats',
    title: 'Profile a mirrored table',
    description: [
      'The `tds stats` figures of a table in the mirror, computed by DuckDB (no request to the service): `table` (rows,',
      'columns, first and last creation, rows per day of the last 30 days with rows, last sync) and per column: filled',
      'cells and fill (0-1), distinct values, the 5 most common values, min/max/mean of numbers and dates, cells the',
      'service cut at 200 characters; for action columns `states` (success, failed, skipped, stopped, queued, waiting,',
      'running, manual, none) and `errors`: the failure causes, most frequent first, each with a count, an example',
      'message and up to 3 row IDs. The figures are those of the last sync: call sync_tables first for current ones.',
      "`columns` keeps some columns. A result over the server's text cap is cut by columns (truncated: true).",
    ].join(' '),
    input,
    output: z.object({
      table: z.record(z.string(), z.unknown()),
      columns: z.array(z.record(z.string(), z.unknown())),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args) {
      // loaded by the first call: the server answers `initialize` without the tools' code
      const { readCatalog, requireMirrorTable } = await import('../catalog.js');
      const { state } = requireMirrorTable(await readCatalog(session), args.table);
      const { tableStats } = await import('../../stats/figures.js');
      const stats = await session.mirror.read((db) =>
        tableStats(db.connection, { table: state.tableId, db: session.mirror.path, ...(args.columns ? { columns: args.columns } : {}) }),
      );
      const caps = { ...session.caps, maxRows: Number.MAX_SAFE_INTEGER };
      const total = stats.columns.length;
      return capRows(stats.columns, caps, (columns, cutBy) => ({
        table: { ...stats.table },
        columns: columns.map((column) => ({ ...column })),
        ...truncation({ cutBy, kept: columns.length, total }, caps, 'name fewer columns (columns) to see the others', 'columns'),
      })).result;
    },
  });
}

import { z } from 'zod';
import { UsageError } from '../../core/index.js';
import { capRows, jsonBytes, truncation, defineTool, type Tool } from '../tool.js';
import type { Session } from '../session.js';

function inputOf(maxRows: number) {
  return z
    .object({
      sql: z.string().min(1).max(100_000).describe("one statement of DuckDB's SQL"),
      max_rows: z.number().int().min(1).max(maxRows).optional().describe(`rows returned at most (default ${maxRows})`),
    })
    .strict();
}
type Input = ReturnType<typeof inputOf>;

export function querySqlTool(session: Session): Tool<Input> {
  const { maxRows } = session.caps;
  return defineTool({
    name: 'query_sql',
    title: 'Query the mirror with SQL',
    description: [
      "Runs one SQL statement (DuckDB's dialect) over the local mirror, read-only. Tables: the mirror table names",
      'list_tables gives (e.g. leads), plus _tds_tables, _tds_columns and _tds_syncs; columns: the keys describe_table',
      'gives, double-quoted when they have spaces or capitals ("Last Contacted", "Enrich.status"). Returns `columns`,',
      '`rows` as JSON records (instants as ISO 8601 text, big integers as exact text, lists and JSON as JSON) and',
      `\`row_count\`, every row of the result. At most \`max_rows\` rows (default and most ${maxRows}) and the server's`,
      'text cap: a larger result comes cut, with truncated: true and a hint. Aggregate in SQL (GROUP BY, count(*),',
      'avg(…)) rather than reading rows. No file, extension, setting or other database is reachable, and a statement',
      `runs at most ${QUERY_TIMEOUT_MS / 1000} s. The mirror is as fresh as its last sync (sync_tables).`,
    ].join(' '),
    input: inputOf(maxRows),
    output: z.object({
      columns: z.array(z.string()),
      rows: z.array(z.record(z.string(), z.unknown())),
      row_count: z.number(),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, call) {
      const limit = args.max_rows ?? maxRows;
      // loaded by the first call: the server answers `initialize` without DuckDB's code
      const { runQuery } = await import('../run-query.js');
      const result = await session.mirror.read((db) =>
        runQuery(db, args.sql, { limit, signal: call.signal, timeoutMs: QUERY_TIMEOUT_MS, onAbandoned: () => session.mirror.discard() }),
      );
      const caps = { ...session.caps, maxRows: limit };
      const capped = capRows(result.rows, caps, (rows, cutBy) => ({
        columns: result.columns,
        rows,
        row_count: result.rowCount,
        ...truncation(
          { cutBy, kept: rows.length, total: result.rowCount },
          caps,
          'aggregate in SQL (GROUP BY, count(*), avg(…)) or ask for what matters (WHERE, ORDER BY … LIMIT)',
        ),
      })).result;
      // the column names count too: a result cut to no row may still be over the cap
      const columnBytes = jsonBytes(result.columns);
      if (jsonBytes(capped) > caps.maxBytes) {
        throw new UsageError(
          `the result's column names take ${columnBytes.toLocaleString('en-US')} bytes: with them not even a result without rows fits in the server's --max-bytes ${caps.maxBytes.toLocaleString('en-US')}`,
          { hint: 'name long columns with AS (SELECT length(x) AS n …): a column is named after its expression otherwise' },
        );
      }
      return capped;
    },
  });
}

/** How long query_sql's statement may run. */
export const QUERY_TIMEOUT_MS = 10_000;

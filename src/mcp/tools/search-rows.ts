import { z } from 'zod';
import { PAGE_LIMIT_MAX, SEARCH_MAX_CHARS } from '../../service/index.js';
import type { Session } from '../session.js';
import { defineTool, type Tool } from '../tool.js';

const DEFAULT_LIMIT = 20;

function inputOf(maxLimit: number) {
  return z
    .object({
      table: z.string().min(1).describe('a table ID, exact name, or mirror table name'),
      where: z.string().min(1).max(10_000).optional().describe('a --where expression'),
      q: z.string().min(1).max(SEARCH_MAX_CHARS).optional().describe('case-insensitive text search across the cells'),
      limit: z.number().int().min(1).max(maxLimit).optional().describe(`rows at most (default ${DEFAULT_LIMIT})`),
    })
    .strict();
}
type Input = ReturnType<typeof inputOf>;

export function searchRowsTool(session: Session): Tool<Input> {
  const maxLimit = Math.min(PAGE_LIMIT_MAX, session.caps.maxRows);
  return defineTool({
    name: 'search_rows',
    title: 'Search live rows',
    description: [
      'Reads live rows of a table from the service (needs the API key), newest first: those matching `where`, an',
      'expression of the command line\'s --where language (e.g. Stage = "Closed Won" and Employees >= 100; Tags in [VIP,',
      'Partner]; Email contains acme; Enrich.status = failed; Enrich.status in [queued, running]; "Last Contacted" isDatePreset',
      'last7Days; columns by label, name or field ID, checked against the schema before any row is read) and/or the text',
      'search `q`. A run state (COL.status) is tested on the rows the service returns (up to 5 row requests; a note says',
      'the cost). Returns `records` (keys as',
      `in an export: _id, _createdAt, …, one per column), at most \`limit\` (default ${DEFAULT_LIMIT}, at most ${maxLimit});`,
      '`more: true` when more rows match. One row request (more for a run state), within the row-read limit the server',
      'shares with its syncs.',
      'For counts, aggregates or many rows, prefer sync_tables then query_sql.',
    ].join(' '),
    input: inputOf(maxLimit),
    output: z.object({
      table: z.object({ id: z.string(), name: z.string() }),
      records: z.array(z.record(z.string(), z.unknown())),
      returned: z.number(),
      more: z.boolean().describe('more rows match than `limit`'),
      notes: z.array(z.string()),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    // the filter language and the record shaping are loaded on the first call
    run: async (args) => (await import('../row-search.js')).searchRows(session, { ...args, limit: args.limit ?? DEFAULT_LIMIT }),
  });
}

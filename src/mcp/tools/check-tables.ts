import { z } from 'zod';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import type { Session } from '../session.js';

const input = z
  .object({
    tables: z
      .array(z.string().min(1))
      .min(1)
      .max(500)
      .optional()
      .describe('only the checks of these tables, as the checks file names them'),
  })
  .strict();

export function checkTablesTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'check_tables',
    title: 'Run the checks file over the mirror',
    description: [
      'The `tds check` results of the checks file (the `checks` setting, else tds-checks.yaml where the server runs),',
      'computed by DuckDB over the mirror as the last sync left it (call sync_tables first for current figures); read-only:',
      'the run is not recorded. One result per check: table, check, kind, status (pass, warn, fail, error), observed (a',
      'count, a share 0-1, an age in seconds, or the number of schema drifts), threshold, examples (up to 3 row IDs),',
      'message (the drift or the error). `summary` counts the statuses; `changes` lists the checks whose status differs',
      "from the last recorded run. Ages are measured on this machine's clock.",
    ].join(' '),
    input,
    output: z.object({
      results: z.array(z.record(z.string(), z.unknown())),
      summary: z.record(z.string(), z.number()),
      changes: z.array(z.record(z.string(), z.unknown())),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, call) {
      // loaded by the first call (YAML, every check's figure): the server answers `initialize` without them
      const [{ tally }, { DEFAULT_CHECKS_FILE, readChecksFile }, { evaluateChecks }] = await Promise.all([
        import('../../check/check-result.js'),
        import('../../check/checks-file.js'),
        import('../../check/run-checks.js'),
      ]);
      const all = await readChecksFile(session.options.checks ?? DEFAULT_CHECKS_FILE);
      const wanted = args.tables ? new Set(args.tables) : undefined;
      const tables = wanted ? all.filter((table) => wanted.has(table.ref)) : all;
      const { results, changes } = await session.mirror.read((db) =>
        evaluateChecks(db, { db: session.mirror.path, tables, now: Date.now(), signal: call.signal }),
      );
      const summary = tally(results);
      return capRows(results, session.caps, (head, cutBy) => ({
        results: head.map((result) => ({ ...result })),
        summary: { ...summary },
        changes: changes.map((change) => ({ ...change })),
        ...truncation({ cutBy, kept: head.length, total: results.length }, session.caps, 'name fewer tables (tables)', 'results'),
      })).result;
    },
  });
}

import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { TableChecks } from '../../check/index.js';
import { UsageError } from '../../core/index.js';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import { WAYS_TO_SET, type Session } from '../session.js';

const input = z
  .object({
    file: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe("a checks file to run instead of the server's, as an absolute path (a relative one is the server's working folder's)"),
    yaml: z
      .string()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('the checks themselves, as the YAML text of a checks file (see `tds check --help`), instead of a file'),
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
      'The `tds check` results of a checks file: `file`, or the YAML text itself in `yaml`, else the file the server was',
      'started with (--checks, TDS_CHECKS, the `checks` setting, else tds-checks.yaml in its working folder; its log says which),',
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
      const [{ tally }, { evaluateChecks }] = await Promise.all([
        import('../../check/check-result.js'),
        import('../../check/run-checks.js'),
      ]);
      const all = await checksOf(session, args);
      const wanted = args.tables ? new Set(args.tables) : undefined;
      const tables = wanted ? all.filter((table) => wanted.has(table.ref)) : all;
      const now = await session.now();
      const { results, changes } = await session.mirror.read((db) =>
        evaluateChecks(db, { db: session.mirror.path, tables, now, signal: call.signal }),
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

/** The checks a call runs: its inline YAML, its file, or the server's file; a missing file says where it was looked for. */
async function checksOf(session: Session, args: { file?: string | undefined; yaml?: string | undefined }): Promise<TableChecks[]> {
  const { parseChecks, readChecksFile } = await import('../../check/checks-file.js');
  if (args.file !== undefined && args.yaml !== undefined) throw new UsageError('give file or yaml, not both');
  if (args.yaml !== undefined) return parseChecks(args.yaml, 'yaml');
  const given = args.file !== undefined;
  const path = given ? resolve(args.file!) : session.options.checks.path;
  const from = given
    ? `the file argument${isAbsolute(args.file!) ? '' : ", relative to the server's working folder"}`
    : session.options.checks.from;
  const missing = await access(path).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
  if (missing) throw new UsageError(`there is no checks file at ${path} (from ${from})`, { hint: WAYS_TO_SET.checks });
  return readChecksFile(path);
}

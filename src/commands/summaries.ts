// Each command's line in the top-level help: its term (name, alias, `[options]`, arguments) and its
// summary. The definitions take their descriptions from here, and `tds --help` is written from here alone
// (root.ts helpProgram), so it loads no command's definition; a test holds it equal to the whole tree's help.

export const SUMMARIES = {
  workspaces: {
    term: 'workspaces [options]',
    description: 'list the workspaces of the organization, with their table counts (GET /workspaces)',
  },
  tables: {
    term: 'tables [options]',
    description: 'list the tables of the organization, or of one workspace, with row and column counts (GET /tables)',
  },
  schema: {
    term: 'schema [options] <table>',
    description: "show a table's columns: ID, label, name, type, options and system flag (GET /tables/{id}/schema)",
  },
  rows: {
    term: 'rows [options] <table>',
    description:
      'export every row of a table as CSV (default), TSV, NDJSON, JSON, Parquet (typed columns) or a table for the terminal, each row once, written as pages arrive (GET /tables/{id}/rows); -o FILE is written atomically and can be resumed after an interruption; --follow keeps writing the rows created afterwards',
  },
  query: {
    term: 'query [options] <table>',
    description:
      'export the rows that match column filters and a search (POST /tables/{id}/rows/query); the filters are checked against the schema before any row is read; same output options as `tds rows`',
  },
  push: {
    term: 'push [options] [webhook] [file]',
    description: 'send CSV, TSV, NDJSON or JSON records into a table through its webhook, each record once',
  },
  webhooks: {
    term: 'webhooks [options]',
    description: 'each webhook saved or pushed to: its table, submissions, first and last use, and what is left of its budget',
  },
  sync: {
    term: 'sync [options] [tables...]',
    description: 'keep a local DuckDB mirror of tables current, reading only what changed (see also `tds sql`)',
  },
  sql: {
    term: 'sql [options] [query]',
    description: 'run one SQL statement (DuckDB) against the local mirror, printed like an export or written to a file',
  },
  stats: {
    term: 'stats [options] <table>',
    description: "a table's profile from the mirror: fill, values, run states, failure causes; an HTML report with -o FILE.html",
  },
  check: {
    term: 'check [options] [file]',
    description: 'contracts and health checks over the mirror, for cron, CI and agents: exit 9 when one fails',
  },
  mcp: {
    term: 'mcp [options]',
    description: 'serve the Model Context Protocol on stdin/stdout: the tables, the mirror and SQL for agents',
  },
  diff: {
    term: 'diff [options] <table>',
    description: 'what changed in a mirrored table between two moments (from the mirror; see `tds sync`)',
  },
  lake: {
    term: 'lake',
    description: 'the Parquet lake of `tds sync --lake`: compact it, check it against the mirror',
  },
  emulator: {
    term: 'emulator [options]',
    description: 'run the local emulator of the service (for offline use and tests)',
  },
  demo: {
    term: 'demo [options]',
    description: 'start the emulator in-process and walk through the main jobs of tds, with real output',
  },
  config: {
    term: 'config',
    description: 'manage profiles in the config file: base URL, API key, default format, saved webhooks',
  },
  auth: {
    term: 'auth|doctor',
    description: 'check the base URL, API key and subscription (`tds auth check`, or `tds doctor`)',
  },
  completion: {
    term: 'completion <shell>',
    description: 'print a shell completion script (bash, zsh or fish)',
  },
} as const satisfies Record<string, { term: string; description: string }>;

export type CommandName = keyof typeof SUMMARIES;

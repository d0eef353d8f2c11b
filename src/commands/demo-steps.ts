import { spawn, spawnSync } from 'node:child_process';
import { isSea } from 'node:sea';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

// The walk-through of `tds demo`: what a step is (a command line as a user would type it, how it runs, how
// its result is shown), and the steps, one group per main job in the order a newcomer meets them.

export interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface DemoStep {
  title: string;
  /** The command line as a user would type it. */
  display: string;
  /** Arguments after `tds`: the step runs the real tds with them. */
  args?: string[];
  /** Instead of `args`, for a command that is not tds (curl): done in-process, with the output the command gives. */
  run?: () => Promise<StepResult>;
  prepare?: () => Promise<void>;
  /** What the step shows (default: its stdout); its stderr follows unless `showStderr` is false. */
  show?: (result: StepResult) => Promise<string>;
  showStderr?: boolean;
  /** The exit code the step ends with (default 0): `tds check` that finds a failing check exits 9. */
  expectCode?: number;
  /** What the step waits for, said before it runs (a step that waits on the service takes seconds). */
  waits?: string;
}

/** What the steps know of the demo's emulator and folder. */
export interface DemoTour {
  dir: string;
  /** `http://127.0.0.1:PORT`: the emulator's own routes are under `/_emulator`. */
  origin: string;
  /** Table ID by name, for the admin routes. */
  tableIds: Record<string, string>;
}

/** Runs a command with `input` on its stdin; resolves with its stdout (for the jq step). */
function pipeThrough(command: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(output));
    child.stdin.end(input);
  });
}

export function demoSteps(tour: DemoTour): DemoStep[] {
  return [...readSteps(tour), ...pushSteps(tour), ...mirrorSteps(tour), ...checkSteps(tour), ...agentSteps()];
}

/** What an MCP client (Claude Desktop or Code, Cursor) needs to use the tables: `tds mcp` on stdio. */
// the single executable is tds itself, wherever it was put; under node, npx finds the project's tds
const MCP_CONFIG = {
  mcpServers: { tds: isSea() ? { command: process.execPath, args: ['mcp'] } : { command: 'npx', args: ['tds', 'mcp'] } },
};

/** Agents: the configuration line that gives an MCP client every table, the mirror, stats and SQL. */
function agentSteps(): DemoStep[] {
  const text = `${JSON.stringify(MCP_CONFIG, null, 2)}\n`;
  return [
    {
      title: 'agents: an MCP client (Claude, Cursor) gets the same tables, mirror, stats and SQL through `tds mcp` on stdio',
      display: 'cat .mcp.json',
      run: () => Promise.resolve({ code: 0, stdout: text, stderr: '' }),
    },
  ];
}

const JQ_FILTER = '{name: .Name, stage: .Stage, employees: .Employees}';

/** Listing, exporting and querying. */
function readSteps({ dir }: DemoTour): DemoStep[] {
  return [
    { title: 'the workspaces of the organization', display: 'tds workspaces', args: ['workspaces'] },
    { title: 'every table, with row counts', display: 'tds tables', args: ['tables'] },
    { title: 'the columns of one table (labels, types, select options)', display: 'tds schema Leads', args: ['schema', 'Leads'] },
    {
      title: 'export every row to CSV (all pages, written atomically); then its first lines',
      display: 'tds rows Leads -o leads.csv',
      args: ['rows', 'Leads', '-o', join(dir, 'leads.csv')],
      show: async () => {
        const lines = (await readFile(join(dir, 'leads.csv'), 'utf8')).split('\n').slice(0, 4);
        return `$ head -4 leads.csv\n${lines.map((line) => (line.length > 160 ? `${line.slice(0, 157)}...` : line)).join('\n')}\n`;
      },
    },
    {
      title: 'only the rows that match a filter: chosen columns, no meta keys, the first 5',
      display: `tds query Leads --where 'Stage = "Closed Won" and Employees >= 100' --columns Name,Stage,Employees --no-meta -n 5`,
      args: [
        'query',
        'Leads',
        '--where',
        'Stage = "Closed Won" and Employees >= 100',
        '--columns',
        'Name,Stage,Employees',
        '--no-meta',
        '-n',
        '5',
      ],
    },
    {
      title: 'NDJSON drops straight into jq',
      display: `tds rows Leads --format ndjson -n 3 | jq -c '${JQ_FILTER}'`,
      args: ['rows', 'Leads', '--format', 'ndjson', '-n', '3'],
      show: async (result) => {
        if (spawnSync('jq', ['--version']).status === 0) return pipeThrough('jq', ['-c', JQ_FILTER], result.stdout);
        const picked = result.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .map((row) => JSON.stringify({ name: row.Name, stage: row.Stage, employees: row.Employees }));
        return `(jq is not installed here; this is what it would print)\n${picked.join('\n')}\n`;
      },
    },
  ];
}

const SIGNUPS_CSV = `email,name,plan,seats
ada@example.com,Ada Lovelace,pro,5
grace@example.com,Grace Hopper,team,12
"linus@example.com","Torvalds, Linus",free,1
`;

// ada@example.com is in the table already (the signups step): --skip-existing leaves her out
const LEADS_CSV = `email,name
ada@example.com,Ada Lovelace
katherine@nasa.gov,Katherine Johnson
margaret@mit.edu,Margaret Hamilton
`;

/** Loading records through a webhook: plain, then by key with the enrichment waited for. */
function pushSteps({ dir }: DemoTour): DemoStep[] {
  return [
    {
      title: 'load a CSV into a table through its webhook, and wait until the rows are visible',
      display: 'tds push signups.csv --table Inbox --wait',
      args: ['push', join(dir, 'signups.csv'), '--table', 'Inbox', '--wait'],
      waits: "the webhook adds rows asynchronously: tds polls the table's row count until the new rows show",
      prepare: async () => {
        await writeFile(join(dir, 'signups.csv'), SIGNUPS_CSV);
        await removeJournals(dir, 'signups.csv');
      },
    },
    {
      title: 'push by key: each lead once (those in the table already left out), wait for the enrichment columns, write the enriched rows',
      display: 'tds push new-leads.csv --key email --table Inbox --skip-existing --wait settled -o enriched.csv',
      args: [
        'push',
        join(dir, 'new-leads.csv'),
        '--key',
        'email',
        '--table',
        'Inbox',
        '--skip-existing',
        '--wait',
        'settled',
        '-o',
        join(dir, 'enriched.csv'),
      ],
      waits:
        "the lookup of the keys, the rows to show, then each row's Domain and Company cells to run (queued, running, done: a step every 0.3 s here)",
      prepare: async () => {
        await writeFile(join(dir, 'new-leads.csv'), LEADS_CSV);
        await removeJournals(dir, 'new-leads.csv');
      },
    },
    {
      title: 'the rows of both pushes in the table, enriched: each action column with its run status and error',
      display: 'tds rows Inbox --columns Email,Domain,Company --status-columns --no-meta',
      args: ['rows', 'Inbox', '--columns', 'Email,Domain,Company', '--status-columns', '--no-meta'],
    },
  ];
}

/** A journal from an earlier demo in the same folder (its data folder, TDS_DATA_DIR) would (rightly) stop a second push of the file. */
async function removeJournals(dir: string, file: string): Promise<void> {
  const journals = join(dir, 'data', 'journals');
  for (const name of await readdir(journals).catch(() => [] as string[])) {
    if (name.startsWith(`${file}.`) && name.endsWith('.tds-journal')) await rm(join(journals, name), { force: true });
  }
}

const FAILURES_PER_STAGE =
  'SELECT Stage, count(*) AS leads, count(*) FILTER (WHERE "Enrich.status" = \'failed\') AS failed FROM leads GROUP BY Stage ORDER BY failed DESC, Stage';

/** Two new leads, made in the service by someone else: here, through the emulator's admin route. */
const NEW_LEADS = {
  rows: [
    { cells: { name: 'Grace Hopper', email: 'grace@navy.example', stage: 'new' } },
    { cells: { name: 'Alan Turing', email: 'alan@bletchley.example', stage: 'contacted' } },
  ],
};

/**
 * An old lead edited and another deleted on the service (the admin routes): changes no incremental sync
 * sees, which a plain sync finds by the count (the mirror holds a row more than the service lists).
 */
async function editAndDeleteOld({ dir, origin, tableIds }: DemoTour): Promise<StepResult> {
  const key = (await readFile(join(dir, 'api-key'), 'utf8')).trim();
  // the two oldest leads: the service lists rows newest first
  const rows: Array<{ id: string }> = [];
  for (let cursor: string | null = ''; cursor !== null;) {
    const url = `${origin}/v1/tables/${tableIds.Leads}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = (await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      rows: Array<{ id: string }>;
      nextCursor: string | null;
    };
    rows.push(...page.rows);
    cursor = page.nextCursor;
  }
  const [edited, deleted] = [rows.at(-1)!.id, rows.at(-2)!.id];
  const route = `${origin}/_emulator/tables/${tableIds.Leads}/rows`;
  const patch = await fetch(`${route}/${edited}`, { method: 'PATCH', body: JSON.stringify({ cells: { name: 'Renamed Long Ago' } }) });
  const removal = await fetch(`${route}/${deleted}`, { method: 'DELETE' });
  await Promise.all([patch.arrayBuffer(), removal.arrayBuffer()]);
  const code = patch.ok && removal.ok ? 0 : 1;
  return { code, stdout: `PATCH ${edited} ${patch.status}\nDELETE ${deleted} ${removal.status}\n`, stderr: '' };
}

/** The mirror: a first sync, SQL over it, changes in the service, and the syncs that find them. */
function mirrorSteps(tour: DemoTour): DemoStep[] {
  const { dir, origin, tableIds } = tour;
  const rowsRoute = `${origin}/_emulator/tables/${tableIds.Leads}/rows`;
  return [
    {
      title: 'mirror two tables into a local DuckDB file, tds.duckdb (the first sync of a table reads every row)',
      display: 'tds sync Leads Companies',
      args: ['sync', 'Leads', 'Companies'],
      waits: "every row of both tables, 100 a page, within the organization's row-read limit",
      prepare: async () => {
        for (const file of ['tds.duckdb', 'tds.duckdb.wal']) await rm(join(dir, file), { force: true });
      },
    },
    {
      title: 'SQL over the mirror, no request to the service: failed enrichments per stage',
      display: `tds sql "${FAILURES_PER_STAGE.replaceAll('"', '\\"')}" --format table`,
      args: ['sql', FAILURES_PER_STAGE, '--format', 'table'],
    },
    {
      title: "meanwhile the service changes: two new leads (here through the emulator's admin route)",
      display: `curl -s -X POST ${rowsRoute} -d '${JSON.stringify(NEW_LEADS)}' -o /dev/null -w '%{http_code}\\n'`,
      run: async () => {
        const response = await fetch(rowsRoute, { method: 'POST', body: JSON.stringify(NEW_LEADS) });
        await response.arrayBuffer();
        return { code: response.status === 201 ? 0 : 1, stdout: `${response.status}\n`, stderr: '' };
      },
    },
    {
      title: 'sync again (the tables already in the mirror): it reads only what changed since the last sync, one page each',
      display: 'tds sync',
      args: ['sync'],
    },
    {
      title: 'what that sync brought, row by row, from the mirror alone (every version it replaced is kept)',
      display: 'tds diff Leads --format ndjson',
      args: ['diff', 'Leads', '--format', 'ndjson'],
    },
    {
      title:
        'meanwhile the oldest lead is renamed and the next oldest deleted: no new row shows either, an incremental sync cannot see them',
      display: `curl -s -X PATCH ${rowsRoute}/ROW_A -d '{"cells":{"name":"Renamed Long Ago"}}'; curl -s -X DELETE ${rowsRoute}/ROW_B`,
      run: () => editAndDeleteOld(tour),
    },
    {
      title:
        'sync again: the mirror holds a row more than the service lists, so Leads gets a pass over every row (the edit comes too); the summary says when each table was last verified',
      display: 'tds sync',
      args: ['sync'],
    },
    {
      title: "how did the enrichment go: Leads' fill, run states and failures grouped by cause, from the mirror",
      display: 'tds stats Leads --no-sync --columns Stage,Enrich --format table',
      args: ['stats', 'Leads', '--no-sync', '--columns', 'Stage,Enrich', '--format', 'table'],
    },
  ];
}

// `tds check` in the demo: checks that pass, leads whose Enrich fails once the emulator's actions have
// run on them, the failure rate past its threshold (exit 9), and the message a local receiver got.

const CHECKS = `tables:
  Leads:
    checks:
      - rows: {min: 1}
      - failure_rate: {column: Enrich, max: 0.1, since: 1h}
      - stuck: {column: Enrich, max_age: 1h}
`;

/** Leads whose Email has no domain: their Enrich (the domain of the Email) fails. */
const BAD_LEADS = { rows: ['nobody', 'n/a', 'ask later', 'tbd', '-'].map((email, i) => ({ cells: { name: `Lead ${i + 1}`, email } })) };

/** A receiver of notifications on loopback, as a Slack or Teams incoming webhook would be: it keeps what it got. */
class Receiver {
  readonly bodies: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        this.bodies.push(body);
        res.end('ok');
      });
    });
    this.server.unref();
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/demo`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function checkSteps({ dir, origin, tableIds }: DemoTour): DemoStep[] {
  const receiver = new Receiver();
  let url = '';
  const rowsRoute = `${origin}/_emulator/tables/${tableIds.Leads}/rows`;
  /** `tds check` to the receiver (its URL known once it listens: `args` is read when the step runs). */
  const check = (title: string, expectCode: number, prepare?: () => Promise<void>): DemoStep => ({
    title,
    ...(prepare ? { prepare } : {}),
    display: 'tds check --notify http://127.0.0.1:PORT/hooks/demo --format table',
    get args() {
      return ['check', '--notify', url, '--format', 'table'];
    },
    expectCode,
  });
  return [
    check('checks for cron and CI, declared in tds-checks.yaml; a local receiver stands in for a Slack channel. All pass', 0, async () => {
      await writeFile(join(dir, 'tds-checks.yaml'), CHECKS);
      url = await receiver.start();
    }),
    {
      title: "five leads without a domain in their Email arrive, and the emulator's Enrich runs on them",
      display: `curl -s -X POST ${rowsRoute} -d '${JSON.stringify(BAD_LEADS)}'; curl -s -X POST ${origin}/_emulator/actions/finish`,
      run: async () => {
        const added = await fetch(rowsRoute, { method: 'POST', body: JSON.stringify(BAD_LEADS) });
        await added.arrayBuffer();
        const finished = await fetch(`${origin}/_emulator/actions/finish`, { method: 'POST' });
        await finished.arrayBuffer();
        return { code: added.status === 201 && finished.ok ? 0 : 1, stdout: `${added.status} ${finished.status}\n`, stderr: '' };
      },
    },
    check('the failure rate crosses its threshold: the check fails (exit 9), and the receiver is told once', 9),
    {
      title: 'the message the receiver got (its `text` reads as it is in Slack or Teams)',
      display: 'cat received.json',
      run: async () => {
        await receiver.close();
        const last = receiver.bodies.at(-1);
        const stdout = last ? `${JSON.stringify(JSON.parse(last), null, 2)}\n` : '(nothing)\n';
        return { code: receiver.bodies.length === 1 ? 0 : 1, stdout, stderr: '' };
      },
    },
  ];
}

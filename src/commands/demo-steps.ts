import { spawn, spawnSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { join } from 'node:path';

// The walk-through of `tds demo`: each step is a real tds command line and how to show its result.

export interface DemoStep {
  title: string;
  /** The command line as a user would type it. */
  display: string;
  /** Arguments after `tds`. */
  args: string[];
  prepare?: () => Promise<void>;
  show: (result: { stdout: string; stderr: string }) => Promise<string>;
  showStderr?: boolean;
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

const ENRICHED_COLUMNS = ['Email', 'Domain', 'Domain.status', 'Company', 'Company.status'];

const asIs = async (result: { stdout: string }): Promise<string> => result.stdout;

export function demoSteps(dir: string): DemoStep[] {
  return [...readSteps(dir), ...pushSteps(dir)];
}

/** Listing, exporting and querying. */
function readSteps(dir: string): DemoStep[] {
  const jq = 'jq';
  const jqFilter = '{name: .Name, stage: .Stage, employees: .Employees}';
  return [
    { title: 'the workspaces of the organization', display: 'tds workspaces', args: ['workspaces'], show: asIs },
    { title: 'every table, with row counts', display: 'tds tables', args: ['tables'], show: asIs },
    {
      title: 'the columns of one table (labels, types, select options)',
      display: 'tds schema Leads',
      args: ['schema', 'Leads'],
      show: asIs,
    },
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
      show: asIs,
    },
    {
      title: 'NDJSON drops straight into jq',
      display: `tds rows Leads --format ndjson -n 3 | jq -c '${jqFilter}'`,
      args: ['rows', 'Leads', '--format', 'ndjson', '-n', '3'],
      show: async (result) => {
        if (spawnSync(jq, ['--version']).status === 0) return pipeThrough(jq, ['-c', jqFilter], result.stdout);
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

/** Loading records through a webhook. */
function pushSteps(dir: string): DemoStep[] {
  return [
    {
      title: 'load a CSV into a table through its webhook, and wait until the rows are visible',
      display: 'tds push signups.csv --table Inbox --wait',
      args: ['push', join(dir, 'signups.csv'), '--table', 'Inbox', '--wait'],
      prepare: async () => {
        await writeFile(join(dir, 'signups.csv'), SIGNUPS_CSV);
        await removeJournals(dir, 'signups.csv');
      },
      show: asIs,
    },
    {
      title: 'the pushed rows, read back',
      display: 'tds rows Inbox --no-meta --format ndjson',
      args: ['rows', 'Inbox', '--no-meta', '--format', 'ndjson'],
      show: asIs,
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
      prepare: async () => {
        await writeFile(join(dir, 'new-leads.csv'), LEADS_CSV);
        await removeJournals(dir, 'new-leads.csv');
      },
      show: async () => {
        const rows = parse(await readFile(join(dir, 'enriched.csv')), { columns: true }) as Array<Record<string, string>>;
        const lines = [ENRICHED_COLUMNS.join(','), ...rows.map((row) => ENRICHED_COLUMNS.map((column) => row[column] ?? '').join(','))];
        return `$ csvcut -c ${ENRICHED_COLUMNS.join(',')} enriched.csv\n${lines.join('\n')}\n`;
      },
    },
  ];
}

/** A journal from an earlier demo in the same folder would (rightly) stop a second push of the file. */
async function removeJournals(dir: string, file: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`${file}.`) && name.endsWith('.tds-journal')) await rm(join(dir, name), { force: true });
  }
}

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

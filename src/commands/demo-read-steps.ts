import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeThrough, type DemoStep, type DemoTour } from './demo-step.js';

const JQ_FILTER = '{name: .Name, stage: .Stage, employees: .Employees}';

/** Listing, exporting and querying. */
export function readSteps({ dir }: DemoTour): DemoStep[] {
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

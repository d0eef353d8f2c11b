import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DemoStep, DemoTour } from './demo-step.js';

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
export function pushSteps({ dir }: DemoTour): DemoStep[] {
  return [
    {
      title: 'load a CSV into a table through its webhook, and wait until the rows are visible',
      display: 'tds push signups.csv --table Inbox --wait',
      args: ['push', join(dir, 'signups.csv'), '--table', 'Inbox', '--wait'],
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

/** A journal from an earlier demo in the same folder would (rightly) stop a second push of the file. */
async function removeJournals(dir: string, file: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`${file}.`) && name.endsWith('.tds-journal')) await rm(join(dir, name), { force: true });
  }
}

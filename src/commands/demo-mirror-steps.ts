import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DemoStep, DemoTour } from './demo-step.js';

const FAILURES_PER_STAGE =
  'SELECT Stage, count(*) AS leads, count(*) FILTER (WHERE "Enrich.status" = \'failed\') AS failed FROM leads GROUP BY Stage ORDER BY failed DESC, Stage';

/** Two new leads, made in the service by someone else: here, through the emulator's admin route. */
const NEW_LEADS = {
  rows: [
    { cells: { name: 'Grace Hopper', email: 'grace@navy.example', stage: 'new' } },
    { cells: { name: 'Alan Turing', email: 'alan@bletchley.example', stage: 'contacted' } },
  ],
};

/** The mirror: a first sync, SQL over it, a change in the service, and the incremental sync that reads only it. */
export function mirrorSteps({ dir, origin, tableIds }: DemoTour): DemoStep[] {
  const rowsRoute = `${origin}/_emulator/tables/${tableIds.Leads}/rows`;
  return [
    {
      title: 'mirror two tables into a local DuckDB file, tds.duckdb (the first sync of a table reads every row)',
      display: 'tds sync Leads Companies',
      args: ['sync', 'Leads', 'Companies'],
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
      title: "how did the enrichment go: Leads' fill, run states and failures grouped by cause, from the mirror",
      display: 'tds stats Leads --no-sync --columns Stage,Enrich --format table',
      args: ['stats', 'Leads', '--no-sync', '--columns', 'Stage,Enrich', '--format', 'table'],
    },
  ];
}

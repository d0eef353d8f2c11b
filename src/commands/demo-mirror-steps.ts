import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DemoStep, DemoTour, StepResult } from './demo-step.js';

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
export function mirrorSteps(tour: DemoTour): DemoStep[] {
  const { dir, origin, tableIds } = tour;
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

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STAGE_FIELD } from '../helpers/field-specs.js';
import type { Notification } from '../../src/check/notify.js';
import type { Harness } from '../helpers/emulator-fixture.js';
import { startScriptedServer, type Script, type ScriptedServer } from '../helpers/scripted-server.js';

// A table whose figures are known by construction: 10 rows created on 2025-05-01 and 02, 8 with an
// Email (two share one), Stage New or Won but one "lost" (not an option), a Score on 7, and an Enrich
// column whose cells are 4 success, 2 failed, 1 queued, 1 running, 1 skipped and 1 without a run.

export const FIXTURE_NAME = 'Check Fixture';
export const MIRROR_TABLE = 'check_fixture';

const FIELDS = [{ label: 'Email', type: 'email' }, STAGE_FIELD, { label: 'Score', type: 'number' }, { label: 'Enrich', type: 'action' }];

const ENRICH = ['success', 'success', 'failed', 'success', 'failed', 'queued', 'running', 'skipped', 'success', null] as const;
const EMAILS = ['a@x.example', 'b@x.example', 'b@x.example', 'c@x.example', 'd@x.example', 'e@x.example', 'f@x.example', 'g@x.example'];
const STAGES = ['new', 'won', 'new', 'new', 'won', 'new', 'won', 'new', 'lost', 'new'];

export interface Fixture {
  tableId: string;
  /** Row IDs in the order above. */
  ids: string[];
  fieldIds: Record<string, string>;
}

export async function makeFixture(harness: Harness): Promise<Fixture> {
  const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string; label: string }> }>('POST', '/tables', {
    workspace: 'Sales',
    name: FIXTURE_NAME,
    fields: FIELDS,
  });
  const rows = ENRICH.map((state, i) => ({
    createdAt: `2025-05-0${1 + Math.floor(i / 5)}T0${i % 5}:00:00.000Z`,
    cells: {
      ...(i < EMAILS.length ? { Email: EMAILS[i] } : {}),
      Stage: STAGES[i],
      ...(i < 7 ? { Score: i * 10 } : {}),
      // null: no run (a cell not given would run)
      Enrich:
        state === null ? null : state === 'failed' ? { status: state, errorMessage: 'Provider rate limit reached' } : { status: state },
    },
  }));
  const added = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${created.table.id}/rows`, { rows });
  return {
    tableId: created.table.id,
    ids: added.rows.map((row) => row.id),
    fieldIds: Object.fromEntries(created.fields.map((field) => [field.label, field.id])),
  };
}

/** Writes a checks file into the harness's folder; returns its path. */
export async function writeChecks(harness: Harness, text: string, name = 'checks.yaml'): Promise<string> {
  const path = join(harness.dir, name);
  await writeFile(path, text);
  return path;
}

/** A receiver of notifications: a scripted server (helpers/scripted-server.ts), answering 200 unless scripted. */
export interface Receiver extends ScriptedServer {
  /** its URL, with a secret token in the path as a Slack or Teams webhook has */
  url: string;
  /** the notifications it received, in order */
  notifications(): Notification[];
}

export async function startReceiver(script: Script = () => ({ status: 200 })): Promise<Receiver> {
  const server = await startScriptedServer(script);
  return Object.assign(server, {
    url: `${server.origin}/services/T0SECRET/B0TOKEN/xoxSuperSecret123`,
    notifications: () => server.requests.map((request) => JSON.parse(request.body) as Notification),
  });
}

/** The checks of docs/check.md's example for Leads, by name and severity, in order. */
export const DOCUMENTED_CHECKS: Array<[string, 'fail' | 'warn']> = [
  ['rows', 'fail'],
  ['fill Email', 'fail'],
  ['unique Email', 'fail'],
  ['accepted Stage', 'fail'],
  ['failure_rate Enrich', 'fail'],
  ['stuck Enrich', 'fail'],
  ['activity', 'fail'],
  ['fresh', 'fail'],
  ['stale', 'fail'],
  ['sql owners', 'warn'],
];

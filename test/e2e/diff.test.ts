import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { everyTypeCells, everyTypeTable, exportRows } from '../mirror/helpers.js';
import {
  diffRecords,
  expectedDiff,
  expectSameDiff,
  expectSameRows,
  mirrorView,
  ndjson,
  sqlRows,
  type DiffRecord,
  type MirrorShape,
  type Row,
} from './diff-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// History end to end: edits, deletions, schema drift and action state changes across four syncs of a
// table, then T__history, T_at_sync(N), T_at(MOMENT) and `tds diff` checked value by value against
// exports of the emulator taken at each sync.

let harness: Harness;
let tableId: string;
/** The exports after each sync, as the mirror holds them; the sync IDs; the emulator's time after each. */
const views: Array<Map<string, Row>> = [];
const syncs: number[] = [];
const moments: string[] = [];
/** Row IDs by what was done to them. */
let ids: string[] = [];
let added: string[] = [];

const DAY = 86_400_000;

async function sync(args: string[]): Promise<number> {
  const result = await harness.tds(['sync', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { tables: Array<{ syncId: number }> }).tables[0]!.syncId;
}

async function patch(id: string, cells: Record<string, unknown>): Promise<void> {
  await harness.admin('PATCH', `/tables/${tableId}/rows/${id}`, { cells });
}

async function clockNow(): Promise<string> {
  return (await harness.admin<{ now: string }>('GET', '/clock')).now;
}

/** A minute on the service's clock between rounds: every round's times are apart from the others'. */
const nextMinute = (): Promise<unknown> => harness.admin('POST', '/clock', { advanceMs: 60_000 });

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  const table = await everyTypeTable(harness, 'History');
  tableId = table.id;
  const field = (label: string): string => table.fields.find((candidate) => candidate.label === label)!.id;
  const types = new Map(table.fields.map((candidate) => [candidate.label, candidate.type]));
  // the mirror's keys as they end up: the history follows the drift, so every moment is seen with them
  // (Notes relabelled Remarks, Region added, Logo removed but kept)
  const keys = [
    '_id',
    '_createdAt',
    '_updatedAt',
    '_createdByUserId',
    ...table.fields.flatMap((candidate) =>
      candidate.type === 'action'
        ? [candidate.label, `${candidate.label}.status`, `${candidate.label}.error`]
        : [candidate.label === 'Notes' ? 'Remarks' : candidate.label],
    ),
    'Region',
  ];
  types.set('Region', 'text').set('Remarks', 'text');
  const snapshot = async (shape: Partial<MirrorShape>): Promise<void> => {
    views.push(mirrorView(await exportRows(harness, tableId), { types, keys, renamed: { Notes: 'Remarks' }, ...shape }));
    // a second on: a sync's end is known to the second on the service's clock, and counted at its latest
    await harness.admin('POST', '/clock', { advanceMs: 1000 });
    moments.push(await clockNow());
  };

  // 1: 30 rows
  const created = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
    rows: Array.from({ length: 30 }, (_, i) => ({
      cells: everyTypeCells(i),
      createdAt: new Date(Date.now() - (30 - i) * DAY).toISOString(),
    })),
  });
  ids = created.rows.map((row) => row.id);
  syncs.push(await sync([tableId]));
  await snapshot({});

  // 2: edits, actions set running, deletions, new rows; a field added (and filled in one row), one relabelled
  await nextMinute();
  await patch(ids[0]!, { Name: 'Ada Lovelace', Amount: 1815 });
  await patch(ids[1]!, { Stage: 'new', Tags: ['smb'] });
  for (const id of ids.slice(3, 6)) await patch(id, { Enrich: { status: 'queued', value: null } });
  await harness.admin('POST', `/tables/${tableId}/rows/delete`, { ids: ids.slice(6, 8) });
  added = (
    await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
      rows: Array.from({ length: 3 }, (_, i) => ({ cells: everyTypeCells(100 + i) })),
    })
  ).rows.map((row) => row.id);
  await harness.admin('POST', `/tables/${tableId}/fields`, { label: 'Region', type: 'text' });
  await harness.admin('PATCH', `/tables/${tableId}/fields/${field('Notes')}`, { label: 'Remarks' });
  await patch(ids[0]!, { Region: 'EMEA' });
  syncs.push(await sync(['--full']));
  await snapshot({});

  // 3: the actions finish (two succeed, one fails), a row edited again, one deleted; a field removed
  await nextMinute();
  await patch(ids[3]!, { Enrich: { status: 'success', value: 'a.example' } });
  await patch(ids[4]!, { Enrich: { status: 'success', value: 'b.example' } });
  await patch(ids[5]!, { Enrich: { status: 'failed', errorMessage: 'Domain c.example could not be resolved' } });
  await patch(ids[0]!, { Amount: 1816 });
  await harness.admin('POST', `/tables/${tableId}/rows/delete`, { ids: [ids[8]] });
  const logo = new Map([...views[1]!].map(([id, row]) => [id, row.Logo]));
  await harness.admin('DELETE', `/tables/${tableId}/fields/${field('Logo')}`);
  syncs.push(await sync(['--full']));
  await snapshot({ kept: { Logo: logo } });

  // 4: new rows, an incremental sync
  await nextMinute();
  added.push(
    ...(
      await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
        rows: [{ cells: { Name: 'Late one', Remarks: 'after all' } }, { cells: { Name: 'Later one' } }],
      })
    ).rows.map((row) => row.id),
  );
  syncs.push(await sync([]));
  await snapshot({ kept: { Logo: logo } });
}, 240_000);

describe('the history of a mirror table', () => {
  it('T_at_sync(N) is the table as each sync left it, value by value', async () => {
    for (const [i, syncId] of syncs.entries())
      expectSameRows(await sqlRows(harness, `SELECT * FROM history_at_sync(${syncId})`), views[i]!);
    // the current table is the last
    expectSameRows(await sqlRows(harness, 'SELECT * FROM history'), views.at(-1)!);
  });

  it('T_at(MOMENT) is the table at a moment of the service clock, value by value', async () => {
    for (const [i, moment] of moments.entries()) expectSameRows(await sqlRows(harness, `SELECT * FROM history_at('${moment}')`), views[i]!);
  });

  it('T__history holds each replaced or deleted version once, with who replaced it and why', async () => {
    const versions = await sqlRows(harness, 'SELECT "_id", "_updatedAt", "_syncId", "_replacedBy", "_change" FROM history__history');
    const seen = versions.map((row) => `${String(row._id)} ${String(row._updatedAt)}`);
    expect(new Set(seen).size).toBe(seen.length);
    const deleted = versions.filter((row) => row._change === 'deleted');
    expect(deleted.map((row) => [row._id, row._replacedBy]).sort()).toEqual(
      [...ids.slice(6, 8).map((id) => [id, syncs[1]]), [ids[8], syncs[2]]].sort(),
    );
    // every version a later sync replaced: ids 0, 1, 3-5 in sync 2; 0, 3-5 in sync 3
    const updated = versions.filter((row) => row._change === 'updated');
    const replaced = (syncId: number): unknown[] => updated.filter((row) => row._replacedBy === syncId).map((row) => row._id);
    expect(replaced(syncs[1]!).sort()).toEqual([ids[0], ids[1], ids[3], ids[4], ids[5]].sort());
    expect(replaced(syncs[2]!).sort()).toEqual([ids[0], ids[3], ids[4], ids[5]].sort());
    expect(replaced(syncs[3]!)).toEqual([]);
    // the history follows the table's drift: a relabelled column renamed, an added one there, a removed one kept
    const columns = await sqlRows(harness, "SELECT column_name FROM information_schema.columns WHERE table_name = 'history__history'");
    expect(columns.map((row) => row.column_name)).toEqual(
      expect.arrayContaining(['Remarks', 'Region', 'Logo', '_replacedBy', '_change', '_replacedAt']),
    );
    expect(columns.map((row) => row.column_name)).not.toContain('Notes');
  });

  it('tds diff between syncs, between moments and by default: the records the exports make', async () => {
    for (let i = 1; i < syncs.length; i += 1) {
      const expected = expectedDiff(views[i - 1]!, views[i]!);
      expectSameDiff(await diffRecords(harness, ['History', '--since', `sync:${syncs[i - 1]}`, '--until', `sync:${syncs[i]}`]), expected);
      expectSameDiff(await diffRecords(harness, [tableId, '--since', moments[i - 1]!, '--until', moments[i]!]), expected);
    }
    // the default: what the last sync brought (sync:-2 to now)
    expectSameDiff(await diffRecords(harness, ['history']), expectedDiff(views[2]!, views[3]!));
    expectSameDiff(await diffRecords(harness, ['history', '--since', 'sync:-3', '--until', 'sync:-1']), expectedDiff(views[1]!, views[3]!));
    // before the first sync the table was empty; backwards is the reverse
    expectSameDiff(await diffRecords(harness, ['history', '--since', `sync:-${syncs.length + 1}`]), expectedDiff(new Map(), views[3]!));
    expectSameDiff(
      await diffRecords(harness, ['history', '--since', `sync:${syncs[2]}`, '--until', `sync:${syncs[0]}`]),
      expectedDiff(views[2]!, views[0]!),
    );
    // a sync and a moment mixed
    expectSameDiff(
      await diffRecords(harness, ['history', '--since', `sync:${syncs[0]}`, '--until', moments[2]!]),
      expectedDiff(views[0]!, views[2]!),
    );
    // a duration ago before the first sync: the mirror had not seen the table then (its rows would show
    // as added), and says from when it answers; sync:0 is before the first sync, the table empty
    const early = await harness.tds(['diff', 'history', '--since', '30d']);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(
      /^tds: --since 30d \(\S+\) is before the mirror held history: it answers for (\S+) \(the end of the table's first sync\) and later\n/,
    );
    expectSameDiff(await diffRecords(harness, ['history', '--since', 'sync:0']), expectedDiff(new Map(), views[3]!));
  });

  it('tds diff in every format: JSON the same records, CSV/TSV and the table a line per changed value, -o FILE', async () => {
    const span = ['history', '--since', `sync:${syncs[1]}`, '--until', `sync:${syncs[2]}`];
    const records = await diffRecords(harness, span);
    const json = await harness.tds(['diff', ...span, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(records);
    const lines = records.flatMap((record) =>
      Object.keys(record.after ?? record.before ?? {}).map((key) => [
        record.change,
        record._id,
        key,
        record.before?.[key] ?? null,
        record.after?.[key] ?? null,
      ]),
    );
    const cell = (value: unknown): string => (value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
    for (const [format, delimiter] of [
      ['csv', ','],
      ['tsv', '\t'],
    ] as const) {
      const result = await harness.tds(['diff', ...span, '--format', format]);
      expect(result.code, result.stderr).toBe(0);
      const parsed = parse(result.stdout, { delimiter, relax_quotes: true }) as string[][];
      expect(parsed[0]).toEqual(['change', '_id', 'key', 'before', 'after']);
      expect(parsed.slice(1)).toEqual(lines.map((line) => line.map(cell)));
    }
    const table = await harness.tds(['diff', ...span, '--format', 'table']);
    expect(table.stdout).toMatch(/^change\s+_id\s+key\s+before\s+after/);
    expect(table.stdout).toMatch(new RegExp(`updated\\s+${ids[5]}\\s+Enrich\\.status\\s+queued\\s+failed`));
    const out = join(harness.dir, 'changes.ndjson');
    const written = await harness.tds(['diff', ...span, '-o', out]);
    expect(written.code, written.stderr).toBe(0);
    expect(ndjson(await readFile(out, 'utf8'))).toEqual(records);
    expect(written.stderr).toMatch(new RegExp(`history: ${records.length} rows differ between sync ${syncs[1]} and sync ${syncs[2]}`));
  });

  it('tds diff --summary: counts per change and the value transitions per key', async () => {
    const span = ['history', '--since', `sync:${syncs[1]}`, '--until', `sync:${syncs[2]}`];
    const result = await harness.tds(['diff', ...span, '--summary', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      added: number;
      updated: number;
      deleted: number;
      keys: Array<{ key: string; changed: number; transitions: unknown[] }>;
    };
    const expected = expectedDiff(views[1]!, views[2]!);
    const count = (change: DiffRecord['change']): number => expected.filter((record) => record.change === change).length;
    expect(summary).toMatchObject({ added: count('added'), updated: count('updated'), deleted: count('deleted') });
    expect(summary.keys.find((key) => key.key === 'Enrich.status')).toEqual({
      key: 'Enrich.status',
      changed: 3,
      transitions: [
        { before: 'queued', after: 'success', count: 2 },
        { before: 'queued', after: 'failed', count: 1 },
      ],
      more: 0,
    });
    const text = await harness.tds(['diff', ...span, '--summary', '--format', 'table']);
    expect(text.stdout).toContain(`history: sync ${syncs[1]} → sync ${syncs[2]}`);
    expect(text.stdout).toContain(`0 added, ${count('updated')} updated, 1 deleted`);
    expect(text.stdout).toContain('Enrich.status: queued → success 2, queued → failed 1');
  });

  it.each([
    ['a table not in the mirror', ['diff', 'Leads'], 4, /has no table "Leads"[\s\S]*hint: `tds sync Leads` mirrors it first/],
    ['a sync that does not exist', ['diff', 'history', '--since', 'sync:999'], 2, /sync:999 is not a sync of history\nhint: its syncs are/],
    ['a moment tds diff does not know', ['diff', 'history', '--since', 'yesterday'], 2, /--since "yesterday" is not a moment/],
    ['parquet', ['diff', 'history', '--format', 'parquet'], 2, /argument 'parquet' is invalid/],
  ])('%s: a clear error and the right exit code', async (_name, args, code, message) => {
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it("a sync:N of another table exits 2 naming this table's syncs", async () => {
    const other = await sync(['Signups']);
    const result = await harness.tds(['diff', 'history', '--since', `sync:${other}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`sync:${other} is not a sync of history\\nhint: its syncs are ${syncs.join(', ')}`));
  });
});

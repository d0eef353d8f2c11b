import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, vi } from 'vitest';
import { StateFileError, startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { allRows, get, post, tableByName, starter, writeFormatOneState, type Start } from '../helpers.js';
import { field } from '../../helpers/schemas.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// `dataFile`: state loaded at start when the file exists, saved on close (the webhook rows the intake holds included).

describe('data file', () => {
  let dir: string;
  let start: Start;
  it.beforeEach(({ open, tmp }) => {
    dir = tmp;
    start = starter(open);
  });

  it('saves pushed rows on close and loads them on the next start', async () => {
    const file = join(dir, 'state.json');
    const first = await start({ dataFile: file, ingestDelayMs: 60_000 });
    const inbox = await tableByName(first, 'Inbox');
    await post(first, first.webhooks[inbox.id]!, [{ email: 'kept@x.example' }, { email: 'also@x.example' }], { key: null });
    const tablesBefore = (await get(first, '/tables')).body.tables;
    await first.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = await start({ dataFile: file });
    try {
      expect(second.apiKeys).toEqual(first.apiKeys);
      expect(second.webhooks).not.toEqual({});
      const rows = await allRows(second, inbox.id);
      expect(rows).toHaveLength(2);
      const tablesAfter = (await get(second, '/tables')).body.tables;
      expect(tablesAfter).toEqual(
        tablesBefore.map((t: { id: string; rowCount: number }) => (t.id === inbox.id ? { ...t, rowCount: 2 } : t)),
      );
      const leads = tablesBefore[0].id;
      expect(await allRows(second, leads)).toHaveLength(250);
    } finally {
      await second.close();
    }
  });

  it('row IDs are unique for the life of a data file: restarted with the same seed and churn, no ID comes twice', async () => {
    const file = join(dir, 'churned.json');
    const churn = 'add:200/s,table=Companies';
    const idsOf = async (emu: RunningEmulator): Promise<string[]> =>
      (await allRows(emu, (await tableByName(emu, 'Companies')).id)).map((row) => row.id);
    const grows = async (emu: RunningEmulator, by: number): Promise<void> => {
      const from = (await idsOf(emu)).length;
      await vi.waitFor(async () => expect((await idsOf(emu)).length).toBeGreaterThanOrEqual(from + by), { timeout: 20_000, interval: 20 });
    };
    const first = await start({ dataFile: file, churn });
    await grows(first, 30);
    await first.close();
    const second = await start({ dataFile: file, churn });
    try {
      await grows(second, 30);
      const ids = await idsOf(second);
      expect(ids.length - new Set(ids).size).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('saves a generated table as its recipe', async () => {
    const file = join(dir, 'harness.json');
    const first = await start({ dataFile: file, seed: 'empty', rows: 50_000 });
    const harness = await tableByName(first, 'Generated');
    const page = (await get(first, `/tables/${harness.id}/rows?limit=5`)).body.rows;
    await first.close();
    expect((await readFile(file, 'utf8')).length).toBeLessThan(5_000);
    const second = await start({ dataFile: file });
    try {
      expect((await get(second, `/tables/${harness.id}/rows?limit=5`)).body.rows).toEqual(page);
    } finally {
      await second.close();
    }
  });

  it('refuses a file that is not an emulator state', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"hello": 1}');
    await expect(startEmulator({ port: 0, dataFile: file })).rejects.toThrow(StateFileError);
    await writeFile(file, 'not json');
    await expect(startEmulator({ port: 0, dataFile: file })).rejects.toThrow(/not valid JSON/);
  });

  it('still loads a state file of format 1', async () => {
    const file = join(dir, 'v1.json');
    await writeFormatOneState(file, {
      key: 'k1',
      workspace: 'W',
      tables: [
        {
          id: 'tbl_1',
          name: 'T',
          fields: [field('fld_a', 'a', 'A', 'text')],
          rows: [
            {
              id: 'row_1',
              createdAt: '2025-01-01T00:00:00.000Z',
              updatedAt: '2025-01-02T00:00:00.000Z',
              createdByUserId: null,
              cells: { fld_a: { value: 'x' } },
            },
          ],
        },
        { id: 'tbl_2', name: 'Generated', emoji: ':zap:', fields: [], generated: { count: 30, seed: 42, startMs: 0 } },
      ],
    });
    const emu = await start({ dataFile: file });
    try {
      expect(emu.apiKey).toBe('k1');
      expect((await get(emu, '/tables')).body.tables.map((t: { name: string; rowCount: number }) => [t.name, t.rowCount])).toEqual([
        ['T', 1],
        ['Generated', 30],
      ]);
      expect((await allRows(emu, 'tbl_1'))[0]).toMatchObject({
        id: 'row_1',
        updatedAt: '2025-01-02T00:00:00.000Z',
        cells: { fld_a: { value: 'x' } },
      });
    } finally {
      await emu.close();
    }
    expect(JSON.parse(await readFile(file, 'utf8')).format).toBe('tds-emulator-state/2');
  });
});

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateFileError, startEmulator } from '../../src/emulator/index.js';
import { allRows, get, post, start, tableByName } from './helpers.js';

// `dataFile`: state loaded at start when the file exists, saved on close (pending webhook rows included).

describe('data file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tds-emulator-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

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

  it('saves a generated table as its recipe', async () => {
    const file = join(dir, 'bench.json');
    const first = await start({ dataFile: file, seed: 'empty', rows: 50_000 });
    const bench = await tableByName(first, 'Generated');
    const page = (await get(first, `/tables/${bench.id}/rows?limit=5`)).body.rows;
    await first.close();
    expect((await readFile(file, 'utf8')).length).toBeLessThan(5_000);
    const second = await start({ dataFile: file });
    try {
      expect((await get(second, `/tables/${bench.id}/rows?limit=5`)).body.rows).toEqual(page);
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
});

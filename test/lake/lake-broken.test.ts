import { readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { addEveryTypeRows } from '../e2e/sync-support.js';
import { everyTypeTable } from '../mirror/helpers.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// A lake that is not as syncs left it: a part file cut short or overwritten, a partition whose `_SUCCESS`
// went. `tds lake check` names what is wrong (exit 9); `tds lake compact` refuses (exit 2) and changes nothing.

const openHarness = useOpenOfEachTest();

/** A lake of one table with two partitions (sync 1: 8 rows; sync 2: an edit). */
async function twoPartitions(harness: Harness): Promise<{ lake: string; tableId: string }> {
  const lake = join(harness.dir, 'lake');
  const table = await everyTypeTable(harness);
  const ids = await addEveryTypeRows(harness, table.id, { count: 8, from: 1 });
  expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
  await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[0]}`, { cells: { Name: 'edited' } });
  expect((await harness.tds(['sync', table.id, '--full', '--lake', lake])).code).toBe(0);
  return { lake, tableId: table.id };
}

/** Every file of the folder with its size and content, to show that nothing changed. */
async function contents(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of (await readdir(root, { recursive: true })).sort()) {
    const path = join(root, name);
    if ((await stat(path)).isFile()) found[name] = (await readFile(path)).toString('base64');
  }
  return found;
}

describe('a broken lake', () => {
  it.each([
    ['cut short', (path: string) => stat(path).then((info) => truncate(path, Math.floor(info.size / 2)))],
    ['not Parquet at all', (path: string) => writeFile(path, 'these are not the bytes of a Parquet file')],
  ])('a part file %s: lake check names it (exit 9), lake compact refuses and changes nothing (exit 2)', async (_, spoil) => {
    const harness = await openHarness();
    const { lake } = await twoPartitions(harness);
    const broken = join(lake, 'every_type', 'changes', 'sync_id=2', 'part-0.parquet');
    await spoil(broken);

    const check = await harness.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(9);
    expect(check.stderr).toContain(`every_type: ${broken} is not a readable Parquet file (`);
    expect(check.stderr).toMatch(/every_type: the lake cannot be read whole/);
    expect(check.stderr).not.toMatch(/bug in tds|SELECT|Invalid Input Error/);

    const before = await contents(lake);
    const compact = await harness.tds(['lake', 'compact', lake, '--drop-changes']);
    expect(compact.code, compact.stderr).toBe(2);
    expect(compact.stderr).toContain(`${broken} is not a readable Parquet file`);
    expect(compact.stderr).toMatch(/nothing compacted/);
    expect(compact.stderr).not.toMatch(/bug in tds|SELECT/);
    expect(await contents(lake)).toEqual(before);
  });

  it('a partition whose _SUCCESS was removed is reported incomplete; the next sync writes it again', async () => {
    const harness = await openHarness();
    const { lake, tableId } = await twoPartitions(harness);
    await rm(join(lake, 'every_type', 'changes', 'sync_id=2', '_SUCCESS'));

    const check = await harness.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(9);
    expect(check.stderr).toContain(`every_type: ${join(lake, 'every_type', 'changes', 'sync_id=2')} is incomplete (no _SUCCESS)`);
    expect(check.stderr).not.toMatch(/the lake matches/);
    const compact = await harness.tds(['lake', 'compact', lake]);
    expect(compact.code, compact.stderr).toBe(2);

    expect((await harness.tds(['sync', tableId, '--lake', lake])).code).toBe(0);
    const again = await harness.tds(['lake', 'check', lake]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/every_type: the lake matches the mirror \(8 rows\)/);
  });
});

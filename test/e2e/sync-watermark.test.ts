import { afterEach, describe, expect, it } from 'vitest';
import {
  everyTypeCells,
  everyTypeTable,
  expectMirrorEqualsExport,
  exportRows,
  mirrorBench,
  mirrorRows,
  typesByKey,
  type MirrorBench,
} from '../mirror/helpers.js';

// The watermark of incremental syncs is in the service's time, and a mirror short of the service's row
// count after reading down to it reads further back (issue 20, item 2).

let bench: MirrorBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

async function addRows(b: MirrorBench, tableId: string, count: number, from: number, createdAt?: (i: number) => string): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, k) => ({
    cells: everyTypeCells(from + k),
    ...(createdAt ? { createdAt: createdAt(k) } : {}),
  }));
  return (await b.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, { rows })).rows.map((row) => row.id);
}

async function tablesRow(b: MirrorBench): Promise<{ row_count: number; service_row_count: number }> {
  const result = await b.tds(['sql', 'SELECT row_count, service_row_count FROM _tds_tables', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ row_count: number; service_row_count: number }>)[0]!;
}

async function expectEqual(b: MirrorBench, tableId: string): Promise<void> {
  expectMirrorEqualsExport(await mirrorRows(b, 'every_type'), await exportRows(b, tableId), await typesByKey(b, tableId));
}

describe('tds sync: the watermark is in the service time', () => {
  it("this machine's clock 10 minutes ahead of the service's: rows added after a sync are all synced by the next", async () => {
    bench = await mirrorBench();
    await bench.admin('POST', '/clock', { offsetMs: -600_000 });
    const table = await everyTypeTable(bench);
    await addRows(bench, table.id, 41, 1);
    const first = await bench.tds(['sync', table.id, '--json']);
    expect(first.code, first.stderr).toBe(0);

    await addRows(bench, table.id, 150, 100);
    const next = await bench.tds(['sync', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 150 });
    expect(await tablesRow(bench)).toEqual({ row_count: 191, service_row_count: 191 });
    await expectEqual(bench, table.id);
  });

  it('rows below the watermark that no sync has seen: the mirror short of the service count reads further back, and says so', async () => {
    bench = await mirrorBench();
    const table = await everyTypeTable(bench);
    const hour = 3_600_000;
    const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
    await addRows(bench, table.id, 300, 1, (i) => ago((300 - i) * hour));
    expect((await bench.tds(['sync', table.id])).code).toBe(0);

    // five rows created with times between the old ones (the emulator's admin route; a service's import
    // could do the same), and two new ones
    await addRows(bench, table.id, 5, 400, (i) => ago((250 - i * 10) * hour + 1_000));
    await addRows(bench, table.id, 2, 500);
    const rowReads = (since: number): number => bench!.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows').length;
    let since = bench.emu.requestLog.length;
    const next = await bench.tds(['sync', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /every_type: 5 of the service's rows are not in the mirror after reading down to its watermark; reading further back/,
    );
    expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 7, deleted: 0 });
    // it stops once they are found: at the page of the oldest of them (the third), not at the end of the table
    expect(rowReads(since)).toBe(3);
    expect(await tablesRow(bench)).toEqual({ row_count: 307, service_row_count: 307 });
    await expectEqual(bench, table.id);

    // and a sync with nothing missing reads one page, saying nothing
    since = bench.emu.requestLog.length;
    const idle = await bench.tds(['sync', '--json']);
    expect(JSON.parse(idle.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 0 });
    expect(rowReads(since)).toBe(1);
    expect(idle.stderr).not.toMatch(/reading further back/);
  });
});

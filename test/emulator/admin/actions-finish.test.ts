import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Row, Table } from '../../../src/service/index.js';
import { allRows, emulatorOptions } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// POST /_emulator/actions/finish: the action cells that are still on their way settle now, and those that
// start later settle at once (a test that needs cells to have run asks for it instead of waiting).

describe('admin route: actions/finish', () => {
  let emu: RunningEmulator;
  let table: Table;
  // a step an hour: nothing settles by itself while the test runs
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions({ actionDelayMs: 3_600_000 }))).emu;
    const created = await adminRoute<{ table: Table }>(emu, 'POST', '/tables', {
      workspace: 'Sales',
      name: 'Sites',
      fields: [
        { label: 'Site', type: 'url' },
        { label: 'Host', type: 'action', action: { from: 'Site', derive: 'domain' } },
      ],
    });
    table = created.body.table;
  });

  const statuses = async (): Promise<Array<string | null | undefined>> =>
    (await allRows(emu, table.id)).map((row: Row) => Object.values(row.cells).find((cell) => cell.status !== undefined)?.status);
  const addSites = (count: number) =>
    adminRoute(emu, 'POST', `/tables/${table.id}/rows`, {
      rows: Array.from({ length: count }, (_, i) => ({ cells: { Site: `https://www.site${i}.example` } })),
    });

  it('settles every cell that is queued or running, then settles new ones as they arrive', async () => {
    await addSites(3);
    expect(await statuses()).toEqual(['queued', 'queued', 'queued']);
    const finished = await adminRoute(emu, 'POST', '/actions/finish');
    expect(finished).toMatchObject({ status: 200, body: { finished: true } });
    const settled = await statuses();
    expect(settled).toHaveLength(3);
    for (const status of settled) expect(['success', 'failed', 'skipped', 'stopped']).toContain(status);
    await addSites(2);
    for (const status of await statuses()) expect(['success', 'failed', 'skipped', 'stopped']).toContain(status);
  });
});

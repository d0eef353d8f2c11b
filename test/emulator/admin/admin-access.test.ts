import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { adminAllowed, startEmulator } from '../../../src/emulator/index.js';
import type { Field, RowsPage } from '../../../src/service/index.js';
import { allRows, get, tableInfo, starter } from '../helpers.js';
import { test as it, adminRoute } from '../../helpers/emulator-fixture.js';

// Where the admin routes answer, and what --data keeps of their changes.

const apiError = (statusCode: number, message: RegExp) => ({ statusCode, error: 'API Error', message: expect.stringMatching(message) });

describe('admin access', () => {
  it.each([
    ['127.0.0.1', false, true],
    ['127.1.2.3', false, true],
    ['::1', false, true],
    ['localhost', false, true],
    ['0.0.0.0', false, false],
    ['::', false, false],
    ['192.168.1.5', false, false],
    ['0.0.0.0', true, true],
  ])('host %s with admin %s: %s', (host, flag, allowed) => {
    expect(adminAllowed(host, flag)).toBe(allowed);
  });

  it('answers 404 as an unknown route on a non-loopback bind, unless admin is set', async () => {
    for (const flag of [false, true]) {
      const emu = await startEmulator({ host: '0.0.0.0', port: 0, rateLimits: false, admin: flag });
      const local = { ...emu, baseUrl: emu.baseUrl.replace('0.0.0.0', '127.0.0.1') };
      try {
        const reply = await adminRoute(local, 'POST', '/clock', { advanceMs: 1 });
        if (flag) expect(reply.status).toBe(200);
        else expect(reply.body).toEqual(apiError(404, /No route POST \/_emulator\/clock/));
        expect((await adminRoute(local, 'GET', '/requests')).status).toBe(200);
      } finally {
        await emu.close();
      }
    }
  });
});

describe('admin changes and --data', () => {
  it('saves tables, rows, fields, the clock and changes of the generated table, and loads them', async ({ open, tmp }) => {
    const start = starter(open);
    const file = join(tmp, 'state.json');
    const first = await start({ dataFile: file, actionDelayMs: 60_000, rows: 2_000 });
    const created = await adminRoute(first, 'POST', '/tables', {
      workspace: 'Marketing',
      name: 'Saved',
      webhook: true,
      fields: [
        { label: 'Email', type: 'email', mapKey: 'email' },
        { label: 'Domain', type: 'action', action: { from: 'Email', derive: 'domain' } },
      ],
    });
    const tableId: string = created.body.table.id;
    await adminRoute(first, 'POST', `/tables/${tableId}/rows`, {
      rows: [{ cells: { Email: 'a@b.example' }, createdAt: '2025-01-01T00:00:00Z' }],
    });
    await adminRoute(first, 'POST', `/tables/${tableId}/fields`, { label: 'Score', type: 'number' });
    const note = (await adminRoute(first, 'POST', `/tables/${tableId}/fields`, { label: 'Note', type: 'text' })).body.field.id as string;
    await adminRoute(first, 'POST', `/tables/${tableId}/rows`, { rows: [{ cells: { Note: 'gone with its column' } }] });
    await adminRoute(first, 'DELETE', `/tables/${tableId}/fields/${note}`);
    await adminRoute(first, 'POST', '/clock', { offsetMs: 3_600_000 });
    const harness = await tableInfo(first, 'Generated', 'Bench');
    const [newest, second] = (await get<RowsPage>(first, `/tables/${harness.table.id}/rows?limit=2`)).body.rows;
    await adminRoute(first, 'DELETE', `/tables/${harness.table.id}/rows/${newest!.id}`);
    await adminRoute(first, 'PATCH', `/tables/${harness.table.id}/rows/${second!.id}`, { cells: { Amount: -1 } });
    await adminRoute(first, 'POST', `/tables/${harness.table.id}/rows`, { rows: [{ cells: { Name: 'Added' } }] });
    await adminRoute(first, 'PATCH', `/tables/${harness.table.id}/fields/${harness.id.notes}`, { label: 'Remarks' });
    const tables = (await get(first, '/tables')).body.tables;
    const savedRows = await allRows(first, tableId);
    const generatedPage = (await get<RowsPage>(first, `/tables/${harness.table.id}/rows?limit=5`)).body.rows;
    expect(savedRows[0]!.cells[created.body.fields[2].id]!.status).toBe('queued');
    await first.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(note);
    expect(text).not.toContain('gone with its column');

    const second2 = await start({ dataFile: file });
    try {
      expect((await get(second2, '/tables')).body.tables).toEqual(tables);
      const loaded = await allRows(second2, tableId);
      expect(loaded.map((row) => row.id)).toEqual(savedRows.map((row) => row.id));
      // Saving finished the action that was still queued.
      expect(['success', 'failed', 'skipped', 'stopped']).toContain(loaded[0]!.cells[created.body.fields[2].id]!.status);
      expect((await get(second2, `/tables/${tableId}/schema`)).body.fields.map((field: Field) => field.label)).toEqual([
        'Payload',
        'Email',
        'Domain',
        'Score',
      ]);
      expect(second2.webhooks[tableId]).toMatch(/\/v1\/webhook\//);
      expect((await adminRoute(second2, 'GET', '/clock')).body.offsetMs).toBe(3_600_000);
      expect((await get<RowsPage>(second2, `/tables/${harness.table.id}/rows?limit=5`)).body.rows).toEqual(generatedPage);
      const generatedSchema = (await get(second2, `/tables/${harness.table.id}/schema`)).body.fields as Field[];
      expect(generatedSchema.find((field) => field.id === harness.id.notes)!.label).toBe('Remarks');
      expect(generatedPage[0]!.cells[harness.id.name!]!.value).toBe('Added');
      expect(generatedPage.find((row) => row.id === second!.id)!.cells[harness.id.amount!]).toEqual({ value: -1 });
      expect(generatedPage.map((row) => row.id)).not.toContain(newest!.id);
    } finally {
      await second2.close();
    }
  });
});

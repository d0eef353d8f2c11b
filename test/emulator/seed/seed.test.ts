import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Table } from '../../../src/service/index.js';
import { allRows, get, NOW, post, tableInfo, emulatorOptions, type TableInfo } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// The demo seed other tests depend on: names, sizes, emoji, keys; deterministic for a given clock.

describe('demo seed', () => {
  let emu: RunningEmulator;
  let tables: Table[];
  it.beforeAll(async ({ openForFile }) => {
    // the seed as built: its action cells that are not final stay so (they would run on, live)
    emu = (await openForFile(emulatorOptions({ seededActions: 'pending' }))).emu;
    tables = (await get(emu, '/tables')).body.tables;
  });

  it('has the tables, workspaces, emoji and row counts others rely on', () => {
    expect(tables.map((t) => [t.workspaceName, t.name, t.emoji, t.rowCount])).toEqual([
      ['Sales', 'Leads', ':rocket:', 250],
      ['Sales', 'Companies', ':office:', 40],
      ['Sales', 'Contacts', null, 10],
      ['Sales', 'Edge Cases', null, 12],
      ['Marketing', 'Contacts', null, 10],
      ['Marketing', 'Signups', ':inbox_tray:', 10],
      ['Marketing', 'Inbox', ':incoming_envelope:', 0],
      ['Marketing', 'Empty', null, 0],
      ['People Ops', 'Salaries', ':moneybag:', 15],
    ]);
  });

  it('has fixed keys for both organizations', () => {
    expect(emu.apiKey).toMatch(/^tds_demo_acme_/);
    expect(emu.apiKeys).toEqual({ Acme: emu.apiKey, Globex: expect.stringMatching(/^tds_demo_globex_/) });
  });

  it('maps the webhook-fed tables', async () => {
    const columns = (info: TableInfo): string[] => info.fields.map((field) => `${field.label} ${field.type}`);
    const signups = await tableInfo(emu, 'Signups');
    expect(columns(signups)).toEqual(['Payload webhook', 'Email email', 'Name text', 'Plan select', 'Seats number', 'City text']);
    const inbox = await tableInfo(emu, 'Inbox');
    expect(columns(inbox)).toEqual(['Payload webhook', 'Email email', 'Domain action', 'Company action']);
    expect(Object.keys(emu.webhooks).sort()).toEqual([signups.table.id, inbox.table.id].sort());
    const empty = await tableInfo(emu, 'Empty');
    expect(empty.fields.map((field) => field.type)).toEqual(['text', 'text']);
  });

  it('gives Globex its own workspace and table', async () => {
    const key = emu.apiKeys.Globex!;
    expect((await get(emu, '/workspaces', { key })).body.workspaces.map((w: { name: string }) => w.name)).toEqual(['Globex HQ']);
    expect((await get(emu, '/tables', { key })).body.tables.map((t: Table) => [t.name, t.rowCount])).toEqual([['Accounts', 5]]);
  });

  it('is the same for the same clock, and its dates follow the clock', async ({ open }) => {
    const other = (await open(emulatorOptions({ seededActions: 'pending' }))).emu;
    const later = (await open(emulatorOptions({ now: () => NOW + 40 * 86_400_000 }))).emu;
    try {
      expect((await get(other, '/tables')).body.tables).toEqual(tables);
      const leads = tables[0]!.id;
      expect(await allRows(other, leads)).toEqual(await allRows(emu, leads));
      const info = await tableInfo(later, 'Leads');
      const today = await post(later, `/tables/${info.table.id}/rows/query`, {
        filters: { rules: [{ fieldId: info.id.last_contacted, operator: 'isDatePreset', value: 'today' }] },
      });
      expect(today.body.rows.length).toBeGreaterThan(0);
      const newest = (await get(later, `/tables/${info.table.id}/rows?limit=1`)).body.rows[0];
      expect(Date.parse(newest.createdAt)).toBeGreaterThan(NOW);
    } finally {
      await Promise.all([other.close(), later.close()]);
    }
  });
});

describe('empty seed', () => {
  it('has Acme with its key and nothing else', async ({ open }) => {
    const emu = (await open(emulatorOptions({ seed: 'empty' }))).emu;
    try {
      expect((await get(emu, '/workspaces')).body).toEqual({ workspaces: [], total: 0 });
      expect(emu.apiKeys).toEqual({ Acme: emu.apiKey });
      expect(emu.webhooks).toEqual({});
    } finally {
      await emu.close();
    }
  });
});

import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { CELL_MAX_CHARS, type Row } from '../../../src/service/index.js';
import { allRows, tableInfo, type TableInfo, emulatorOptions } from '../helpers.js';
import { test as it } from '../../helpers/emulator-fixture.js';

// docs/service-api.md section 2 (Row, Cell): shape, empty cells left out, cells over 200 characters cut.

describe('rows and cells', () => {
  let emu: RunningEmulator;
  let leads: TableInfo;
  let rows: Row[];
  it.beforeAll(async ({ openForFile }) => {
    emu = (await openForFile(emulatorOptions())).emu;
    leads = await tableInfo(emu, 'Leads');
    rows = await allRows(emu, leads.table.id);
  });

  const byName = (name: string) => rows.find((row) => row.cells[leads.id.name!]?.value === name)!;

  it('has the members of the spec and no others, cells only of known columns, no empty cells', () => {
    const fieldIds = new Set(leads.fields.map((field) => field.id));
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['cells', 'createdAt', 'createdByUserId', 'id', 'tableId', 'updatedAt']);
      expect(row.tableId).toBe(leads.table.id);
      expect(new Date(row.createdAt).toISOString()).toBe(row.createdAt);
      expect(row.updatedAt >= row.createdAt).toBe(true);
      for (const [id, cell] of Object.entries(row.cells)) {
        expect(fieldIds).toContain(id);
        for (const key of Object.keys(cell)) expect(['value', 'status', 'isTruncated', 'valuePreview', 'errorMessage']).toContain(key);
        expect(cell.value === null && cell.status === undefined && cell.errorMessage === undefined).toBe(false);
        expect(cell.value === '' || (Array.isArray(cell.value) && cell.value.length === 0)).toBe(false);
      }
    }
    const sparse = rows.filter((row) => Object.keys(row.cells).length < leads.fields.length);
    expect(sparse.length).toBeGreaterThan(0);
  });

  it('cuts a text value over 200 characters, with isTruncated and valuePreview', () => {
    const cell = byName("Siobhán O'Brien").cells[leads.id.notes!]!;
    expect(cell.isTruncated).toBe(true);
    expect(cell.value).toHaveLength(CELL_MAX_CHARS);
    expect(cell.valuePreview).toBe(cell.value);
    expect(cell.value).toMatch(/^Long account history/);
    const short = byName('Smith, John').cells[leads.id.notes!]!;
    expect(short).toEqual({ value: 'Said: "call me after 5pm", then hung up' });
  });

  it('cuts an object by its JSON text', () => {
    const cut = rows.map((row) => row.cells[leads.id.address!]).filter((cell) => cell?.isTruncated);
    expect(cut).toHaveLength(1);
    expect(cut[0]!.value).toBe(cut[0]!.valuePreview);
    expect(cut[0]!.valuePreview).toMatch(/^\{"street":"1 Long Road"/);
    expect(cut[0]!.valuePreview).toHaveLength(CELL_MAX_CHARS);
  });

  it('keeps text with commas, quotes, newlines, leading zeros, CJK and emoji as it is', () => {
    for (const name of [
      'Smith, John',
      'Dwayne "The Rock" Johnson',
      '00123',
      '山田 太郎',
      '🚀 Rocket Rider',
      '=SUM(A1:A2)',
      '  padded name  ',
    ]) {
      expect(byName(name)).toBeDefined();
    }
    expect(byName('Dwayne "The Rock" Johnson').cells[leads.id.notes!]!.value).toBe('Line one\nLine two\r\nLine three');
    expect(byName('00123').cells[leads.id.phone!]!.value).toBe('0044 20 7946 0958');
  });

  it('fills the system Created At column with the creation date', () => {
    const createdAt = leads.fields.find((field) => field.isSystem)!.id;
    for (const row of rows) expect(row.cells[createdAt]!.value).toBe(row.createdAt);
  });

  it('serves action cells with status, errorMessage, and value null when there is none', () => {
    const cells = rows.map((row) => row.cells[leads.id.enrich!]).filter((cell) => cell !== undefined);
    expect(cells.find((cell) => cell.status === 'queued')).toEqual({ value: null, status: 'queued' });
    expect(cells.find((cell) => cell.status === 'failed')).toMatchObject({ value: null, errorMessage: expect.anything() });
  });

  it('serves long Edge Cases cells with valuePreview and no value', async () => {
    const edge = await tableInfo(emu, 'Edge Cases');
    const edgeRows = await allRows(emu, edge.table.id);
    expect(edgeRows.length).toBeGreaterThanOrEqual(12);
    const long = edgeRows.map((row) => row.cells[edge.id.long_text!]!).filter((cell) => cell.isTruncated);
    expect(long.length).toBeGreaterThan(0);
    for (const cell of long) {
      expect(cell).not.toHaveProperty('value');
      expect(cell.valuePreview).toHaveLength(CELL_MAX_CHARS);
    }
    expect(edge.fields.filter((field) => field.label === 'Value')).toHaveLength(3);
    expect(edge.fields[0]!.label).toBe('_id');
    const counts = edgeRows.map((row) => row.cells[edge.id.count!]!.value);
    for (const count of counts) expect(typeof count).toBe('number');
    const choice = edge.fields.find((field) => field.label === 'Choice')!;
    for (const option of choice.options!) expect(option.value).not.toBe(option.label);
  });

  it('cuts by characters, never inside an emoji', async () => {
    const emoji = '🎉'.repeat(150); // 300 UTF-16 units, 150 characters: not cut
    const signups = await tableInfo(emu, 'Signups');
    const webhook = emu.webhooks[signups.table.id]!;
    const { request } = await import('undici');
    const body = JSON.stringify([{ name: emoji }, { name: '😀'.repeat(201) }]);
    await request(webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    emu.flushIntake();
    const cells = (await allRows(emu, signups.table.id))
      .map((row) => row.cells[signups.id.name!])
      .filter((cell) => cell?.value !== undefined);
    expect(cells.find((cell) => cell!.value === emoji)).toEqual({ value: emoji });
    const cut = cells.find((cell) => cell!.isTruncated)!;
    expect(Array.from(cut.value as string)).toHaveLength(200);
    expect((cut.value as string).endsWith('😀')).toBe(true);
  });
});

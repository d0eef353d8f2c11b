import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/service/index.js';
import { KeyedRowsFile } from '../../../src/push/wait/write-rows.js';

const row = (id: string, value: unknown, status?: 'running' | 'success'): Row => ({
  id,
  tableId: 't',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  createdByUserId: null,
  cells: { f1: { value, ...(status ? { status } : {}) } },
});

describe('KeyedRowsFile', () => {
  it('gives back each row stored under its key, and nothing for an unknown key', async () => {
    const store = await KeyedRowsFile.create();
    try {
      const a = row('r1', 'Ünïcödé 😀 "quoted"\nline');
      const b = row('r2', { nested: [1, 2, { x: null }] });
      await store.put('a', a);
      await store.put('b', b);
      expect(store.count).toBe(2);
      expect(store.has('a')).toBe(true);
      expect(store.has('c')).toBe(false);
      expect(await store.get('b')).toEqual(b);
      expect(await store.get('a')).toEqual(a);
      expect(await store.get('c')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('points a key stored again to its newer row', async () => {
    const store = await KeyedRowsFile.create();
    try {
      await store.put('a', row('r1', 'x'.repeat(300), 'running'));
      await store.put('b', row('r2', 'b'));
      await store.put('a', row('r1', 'short', 'success'));
      expect(store.count).toBe(2);
      expect(await store.get('a')).toEqual(row('r1', 'short', 'success'));
      expect(await store.get('b')).toEqual(row('r2', 'b'));
    } finally {
      await store.close();
    }
  });

  it('keeps many rows and reads them back in any order', async () => {
    const store = await KeyedRowsFile.create();
    try {
      for (let i = 0; i < 500; i += 1) await store.put(`k${i}`, row(`r${i}`, `value ${i} ${'é'.repeat(i % 7)}`));
      for (const i of [499, 0, 250, 7, 123]) expect(await store.get(`k${i}`)).toEqual(row(`r${i}`, `value ${i} ${'é'.repeat(i % 7)}`));
    } finally {
      await store.close();
    }
  });

  it('keeps its rows in a private temporary folder that close removes', async () => {
    // a TMPDIR of this test's own, so that no other test's store is seen
    const own = await mkdtemp(join(tmpdir(), 'tds-row-store-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      const store = await KeyedRowsFile.create();
      const made = await readdir(own);
      expect(made).toHaveLength(1);
      expect(made[0]).toMatch(/^tds-rows-/);
      const dir = join(own, made[0]!);
      await store.put('a', row('r1', 'v'));
      const file = await stat(join(dir, 'rows.ndjson'));
      expect(file.mode & 0o077).toBe(0);
      expect(file.size).toBeGreaterThan(0);
      await store.close();
      await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readdir(own)).toEqual([]);
      // closing twice does no harm
      await store.close();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(own, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { RowList } from '../../../src/emulator/store/row-list.js';
import { compareIds, type StoredRow } from '../../../src/emulator/store/model.js';

const row = (id: string, createdAt: number) => ({ id, createdAt }) as unknown as StoredRow;

describe('RowList.append', () => {
  it('keeps both orders for a few rows and for a bulk arrival (regression: 1,000,000 webhook rows spliced one by one never finished)', () => {
    const list = new RowList([row('m', 5), row('c', 1)]);
    list.append([row('z', 7), row('a', 6)]);
    const bulk = Array.from({ length: 200_000 }, (_, i) => row(`r${(i * 7919) % 200_003}`, 10 + i));
    const started = performance.now();
    list.append(bulk);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(list.size).toBe(200_004);
    const created = list.all().map((r) => r.createdAt);
    expect(created.every((value, i) => i === 0 || created[i - 1]! <= value)).toBe(true);
    const ids = Array.from({ length: list.size }, (_, i) => list.atById(i).id);
    expect(ids.every((id, i) => i === 0 || compareIds(ids[i - 1]!, id) <= 0)).toBe(true);
    expect(ids.slice(0, 3)).toEqual(['a', 'c', 'm']);
  });
});

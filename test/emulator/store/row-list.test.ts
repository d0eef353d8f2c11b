import { describe, expect, it } from 'vitest';
import { RowList } from '../../../src/emulator/store/row-list.js';
import { compareIds, type StoredRow } from '../../../src/emulator/store/model.js';

const row = (id: string, createdAt: number) => ({ id, createdAt }) as unknown as StoredRow;

describe('RowList.append', () => {
  // how fast a bulk arrival is taken is the benchmark's to say (a wall-clock bound here would fail on a loaded
  // machine); here, that the bulk path (appended and sorted once) keeps both orders
  it('keeps both orders for a few rows and for a bulk arrival (regression: 1,000,000 webhook rows spliced one by one never finished)', () => {
    const list = new RowList([row('m', 5), row('c', 1)]);
    list.append([row('z', 7), row('a', 6)]);
    const bulk = Array.from({ length: 20_000 }, (_, i) => row(`r${(i * 7919) % 20_011}`, 10 + i));
    list.append(bulk);
    expect(list.size).toBe(20_004);
    const created = list.all().map((r) => r.createdAt);
    expect(created.every((value, i) => i === 0 || created[i - 1]! <= value)).toBe(true);
    const ids = Array.from({ length: list.size }, (_, i) => list.atById(i).id);
    expect(ids.every((id, i) => i === 0 || compareIds(ids[i - 1]!, id) <= 0)).toBe(true);
    expect(ids.slice(0, 3)).toEqual(['a', 'c', 'm']);
  });
});

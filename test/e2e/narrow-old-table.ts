import { addRows, makeTable, plainFields } from '../helpers/admin-tables.js';
import type { Harness } from '../helpers/emulator-fixture.js';
import { ago, DAY, syncTables } from './sync-support.js';

/**
 * A table of one text field (Name), `count` rows created ten days ago a minute apart, mirrored by a first sync: its
 * ID and the rows' IDs; `add(n)` adds n rows now. For tests of who gets into the mirror while a follower writes it,
 * which its columns do not change: a page of the every-type table costs the follower several times more to write.
 */
export async function syncedNarrowOldTable(
  harness: Harness,
  count: number,
): Promise<{ id: string; ids: string[]; add: (rows: number) => Promise<unknown> }> {
  const { id } = await makeTable(harness, 'Old Names', plainFields('Name text'));
  const rows = (n: number, agoMs: (k: number) => number) =>
    Array.from({ length: n }, (_, k) => ({ cells: { Name: `Row ${k}` }, createdAt: ago(agoMs(k)) }));
  const ids = await addRows(
    harness,
    id,
    rows(count, (k) => 10 * DAY - k * 60_000),
  );
  await syncTables(harness, [id]);
  return {
    id,
    ids,
    add: (n) =>
      addRows(
        harness,
        id,
        rows(n, () => 0),
      ),
  };
}

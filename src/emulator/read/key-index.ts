import { cellText } from '../store/cell-values.js';
import type { RowSource, StoredRow } from '../store/model.js';
import { RowList } from '../store/row-list.js';
import { orEntries, type CheckedGroup } from './filter-match.js';

// The service answers a query for keys from an index; so does the emulator, or a push by key's lookups
// (a thousand queries of 97 e-mail keys for 100,000 records) would each read every row of the table.
// A query is answered here when all it asks is: rows whose cell in one text column equals one of some
// values (`=` and `in` rules in `or` groups, no search text). The index holds each row's cell text,
// lower-cased, per column; it is rebuilt when the table's rows may have changed (RowList.revision),
// and the query's own test still runs on each row it finds, so the answer is the scan's.

/** Columns whose cells are plain text: `=` and `in` compare their text, lower-cased. */
const INDEXED: ReadonlySet<string> = new Set(['text', 'email', 'phone_number', 'url']);

interface ColumnIndex {
  revision: number;
  /** Lower-cased cell text → the row with it, or the rows (several rows can share a text). */
  rows: Map<string, StoredRow | StoredRow[]>;
}

const indexes = new WeakMap<RowList, Map<string, ColumnIndex>>();

/**
 * The rows that may match a query for keys (a row source to page through as the whole table would
 * be), or undefined when the query asks for more than keys or the table's rows are computed.
 */
export function keyedRows(source: RowSource, group: CheckedGroup): RowSource | undefined {
  if (!(source instanceof RowList)) return undefined;
  const keys = keysOf(group);
  if (!keys) return undefined;
  const index = columnIndex(source, keys.fieldId);
  const found: StoredRow[] = [];
  for (const key of keys.values) {
    const hit = index.get(key);
    if (Array.isArray(hit)) found.push(...hit);
    else if (hit) found.push(hit);
  }
  return new RowList(found);
}

/** The column and the lower-cased values when the group asks only for rows whose text in one column is one of them. */
function keysOf(group: CheckedGroup): { fieldId: string; values: Set<string> } | undefined {
  if (group.combinator !== 'or') return undefined;
  const entries = orEntries(group);
  const first = entries[0];
  if (first?.kind !== 'rule' || !INDEXED.has(first.field.type)) return undefined;
  const values = new Set<string>();
  for (const entry of entries) {
    if (entry.kind !== 'rule' || entry.field.id !== first.field.id || (entry.operator !== '=' && entry.operator !== 'in')) return undefined;
    for (const value of Array.isArray(entry.value) ? entry.value : [String(entry.value)]) values.add(value.toLowerCase());
  }
  return { fieldId: first.field.id, values };
}

function columnIndex(list: RowList, fieldId: string): Map<string, StoredRow | StoredRow[]> {
  let columns = indexes.get(list);
  if (!columns) indexes.set(list, (columns = new Map()));
  const held = columns.get(fieldId);
  if (held?.revision === list.revision) return held.rows;
  const rows = new Map<string, StoredRow | StoredRow[]>();
  for (const row of list.byId()) {
    const text = cellText(row.cells[fieldId]?.value).toLowerCase();
    const hit = rows.get(text);
    if (hit === undefined) rows.set(text, row);
    else if (Array.isArray(hit)) hit.push(row);
    else rows.set(text, [hit, row]);
  }
  columns.set(fieldId, { revision: list.revision, rows });
  return rows;
}

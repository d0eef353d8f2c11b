import { UsageError } from '../core/errors.js';
import type { KeyedField } from './column-keys.js';

/**
 * `--columns A,B`: each reference is a column ID, a record key (`Value (2)`), a label or a name,
 * tried in that order; the result follows the order given.
 */
export function selectColumns(refs: readonly string[], keyed: readonly KeyedField[]): KeyedField[] {
  const picked: KeyedField[] = [];
  for (const ref of refs) {
    const column = resolveColumnRef(ref, keyed);
    if (picked.includes(column)) {
      throw new UsageError(`--columns names the column "${column.key}" (${column.field.id}) more than once`);
    }
    picked.push(column);
  }
  return picked;
}

function resolveColumnRef(ref: string, keyed: readonly KeyedField[]): KeyedField {
  const exact = keyed.find((column) => column.field.id === ref) ?? keyed.find((column) => column.key === ref);
  if (exact) return exact;
  for (const member of ['label', 'name'] as const) {
    const matches = keyed.filter((column) => column.field[member] === ref);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      const candidates = matches.map((column) => `"${column.key}" (${column.field.id})`).join(', ');
      throw new UsageError(`--columns: the ${member} "${ref}" belongs to ${matches.length} columns: ${candidates}`, {
        hint: 'name one of them by its key or ID',
      });
    }
  }
  const available = keyed.map((column) => `"${column.key}" (${column.field.id})`).join(', ');
  throw new UsageError(`--columns: no column "${ref}"; the columns are: ${available}`, {
    hint: 'a column can be named by its label, name, ID or record key; `tds schema TABLE` lists them',
  });
}

import type { Field, Row } from '../service/index.js';
import { cellValue, optionLabels } from './row-shaper.js';
import { keyFields, TRUNCATED_KEY } from './column-keys.js';
import type { HeaderMode } from './shape-options.js';
import { SQL_TYPE_OF, toTyped, UNFIT, type SqlType, type TypedValue } from './typed-values.js';

// The typed layout of a row, shared by the mirror and Parquet exports: `_id` and the meta keys, one
// column per field with the export's keys, `<key>.status` and `<key>.error` after each action column,
// then `_truncated` (the keys of the cells the service cut at 200 characters in that row).

export type ColumnRole = 'id' | 'meta' | 'value' | 'status' | 'error' | 'truncated';

export interface TypedColumn {
  key: string;
  type: SqlType;
  role: ColumnRole;
  /** The field a value, status or error column comes from. */
  field?: Field;
}

/** Re-exported for the mirror, which names `_truncated` in SQL. */
export { TRUNCATED_KEY };

export interface TypedPlanOptions {
  header: HeaderMode;
  /** Keys no field may take (the columns of removed fields that a mirror keeps). */
  reserved?: Iterable<string>;
}

/** Every column of a typed row, in order. */
export function typedPlan(fields: readonly Field[], options: TypedPlanOptions): TypedColumn[] {
  const keyed = keyFields(fields, options.header, options.reserved);
  const columns: TypedColumn[] = [
    { key: '_id', type: 'VARCHAR', role: 'id' },
    { key: '_createdAt', type: 'TIMESTAMPTZ', role: 'meta' },
    { key: '_updatedAt', type: 'TIMESTAMPTZ', role: 'meta' },
    { key: '_createdByUserId', type: 'VARCHAR', role: 'meta' },
  ];
  for (const { field, key, statusKey, errorKey } of keyed) {
    columns.push({ key, type: SQL_TYPE_OF[field.type], role: 'value', field });
    if (statusKey !== undefined) columns.push({ key: statusKey, type: 'VARCHAR', role: 'status', field });
    if (errorKey !== undefined) columns.push({ key: errorKey, type: 'VARCHAR', role: 'error', field });
  }
  columns.push({ key: TRUNCATED_KEY, type: 'VARCHAR[]', role: 'truncated' });
  return columns;
}

/** A row → its typed values, column by column; `onUnfit(key)` for each value that does not fit its type. */
export type TypedRowReader = (row: Row, onUnfit: (key: string) => void) => TypedValue[];

export function typedRowReader(columns: readonly TypedColumn[]): TypedRowReader {
  const valueKeys = new Map(columns.filter((column) => column.role === 'value').map((column) => [column.field!.id, column.key]));
  // one function per column, made once: a row is read without deciding again what each column is
  const extracts = columns.map((column) => extractor(column, valueKeys));
  const count = extracts.length;
  return (row, onUnfit) => {
    const values = new Array<TypedValue>(count);
    for (let i = 0; i < count; i += 1) values[i] = extracts[i]!(row, onUnfit);
    return values;
  };
}

type Extract = (row: Row, onUnfit: (key: string) => void) => TypedValue;

function extractor(column: TypedColumn, valueKeys: ReadonlyMap<string, string>): Extract {
  switch (column.role) {
    case 'id':
      return (row) => row.id;
    case 'meta':
      if (column.key === '_createdAt') return (row) => row.createdAt;
      if (column.key === '_updatedAt') return (row) => row.updatedAt;
      return (row) => row.createdByUserId ?? null;
    case 'truncated':
      return (row) => truncatedKeys(row, valueKeys);
    case 'status': {
      const fieldId = column.field!.id;
      return (row) => row.cells[fieldId]?.status ?? null;
    }
    case 'error': {
      const fieldId = column.field!.id;
      return (row) => errorText(row.cells[fieldId]?.errorMessage);
    }
    case 'value': {
      const { key, type } = column;
      const fieldId = column.field!.id;
      const labels = optionLabels(column.field!);
      return (row, onUnfit) => {
        const typed = toTyped(type, cellValue(row.cells[fieldId], labels));
        if (typed !== UNFIT) return typed;
        onUnfit(key);
        return null;
      };
    }
  }
}

function truncatedKeys(row: Row, valueKeys: ReadonlyMap<string, string>): readonly string[] | null {
  let keys: string[] | null = null;
  const { cells } = row;
  for (const fieldId in cells) {
    const key = cells[fieldId]!.isTruncated === true ? valueKeys.get(fieldId) : undefined;
    if (key !== undefined) (keys ??= []).push(key);
  }
  return keys;
}

function errorText(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

import { UsageError } from '../../core/errors.js';
import type { ColumnType, Field } from '../../service/index.js';

/**
 * The table column a key is looked up in, and how: the filter operator its type accepts that takes
 * the most keys per rule (docs/service-api.md 4.5), and how the service compares (its `=` ignores case).
 */
export interface KeyColumn {
  field: Field;
  /** `in`: a list of keys per rule; `any`: containsAnyOf, up to 20 per rule, then checked exactly; `eq`: one key per rule */
  operator: 'in' | 'any' | 'eq';
}

const OPERATOR_BY_TYPE: Partial<Record<ColumnType, KeyColumn['operator']>> = {
  text: 'in',
  select: 'in',
  url: 'any',
  image: 'any',
  formula: 'any',
  email: 'eq',
  phone_number: 'eq',
  number: 'eq',
};

/** The column `ref` names (ID, then label, then name), checked to be one a key can be looked up in. */
export function keyColumn(fields: readonly Field[], ref: string): KeyColumn {
  const byId = fields.find((field) => field.id === ref);
  const byLabel = fields.filter((field) => field.label === ref);
  const byName = fields.filter((field) => field.name === ref);
  if (!byId && byLabel.length > 1) {
    throw new UsageError(`--key: the label "${ref}" belongs to ${byLabel.length} columns: ${byLabel.map((field) => field.id).join(', ')}`, {
      hint: 'name the column by its ID: --key FIELD=COLUMN_ID',
    });
  }
  const field = byId ?? byLabel[0] ?? (byName.length === 1 ? byName[0] : undefined);
  if (!field) {
    throw new UsageError(`--key: the table has no column "${ref}"`, {
      hint: 'give the column as --key FIELD=COLUMN (its label, name or ID; `tds schema TABLE` lists them)',
    });
  }
  const operator = OPERATOR_BY_TYPE[field.type];
  if (!operator) {
    throw new UsageError(
      `--key: the column "${field.label}" is of type ${field.type}, which cannot hold a key that the service can look up`,
      {
        hint: `a key column is of type ${Object.keys(OPERATOR_BY_TYPE).join(', ')}`,
      },
    );
  }
  return { field, operator };
}

/** The key as the service compares it: case does not matter; a number is compared as a number. */
export function foldKey(column: KeyColumn, key: string): string {
  if (column.field.type === 'number') {
    const number = Number(key.trim());
    return Number.isFinite(number) ? String(number) : key;
  }
  return key.toLowerCase();
}

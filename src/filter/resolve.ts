import type { Field } from '../service/index.js';
import { FilterError, quoted } from './errors.js';
import { didYouMean } from '../core/index.js';

const SCHEMA_HINT = '`tds schema TABLE` lists the columns with their IDs, labels and names';

/** A column reference → its field: a field ID, else a label, else a name (exact matches). */
export function resolveColumn(ref: string, fields: Field[]): Field {
  const field = lookupColumn(ref, fields);
  if (field) return field;
  const suggestion = didYouMean(
    ref,
    fields.flatMap((field) => [field.label, field.name]),
  );
  throw new FilterError(`unknown column ${quoted(ref)}`, { hint: suggestion ? `${suggestion} ${SCHEMA_HINT}` : SCHEMA_HINT });
}

/** The field a reference names, as resolveColumn finds it; undefined when none does (a label several columns share is an error). */
export function lookupColumn(ref: string, fields: Field[]): Field | undefined {
  const byId = fields.find((field) => field.id === ref);
  if (byId) return byId;
  for (const key of ['label', 'name'] as const) {
    const matches = fields.filter((field) => field[key] === ref);
    if (matches.length === 1) return matches[0] as Field;
    if (matches.length > 1) {
      const candidates = matches.map((field) => `${field.id} (name: ${field.name})`).join(', ');
      throw new FilterError(`column ${key} ${quoted(ref)} is shared by ${matches.length} columns: ${candidates}`, {
        hint: `refer to one of them by its ID, e.g. ${(matches[0] as Field).id}`,
      });
    }
  }
  return undefined;
}

/** `"Label" (id)`: how messages name a column. */
export function describeField(field: Field): string {
  return `${quoted(field.label)} (${field.id})`;
}

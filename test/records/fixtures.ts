import type { Field, Row } from '../../src/service/index.js';

// A schema that exercises record shaping: labels shared by two and three columns, a label equal to
// a meta key, a label that already looks disambiguated, selects whose labels differ from their
// values, an action column, and a system column.

/** A field; `type` is its type, or its type with other members (options, isSystem…). */
function field(id: string, name: string, label: string, type: Field['type'] | (Partial<Field> & Pick<Field, 'type'>)): Field {
  return { id, name, label, options: null, isSystem: false, ...(typeof type === 'string' ? { type } : type) };
}

export const fields: Field[] = [
  field('f_ext', 'external_id', '_id', 'text'),
  field('f_name', 'full_name', 'Name', 'text'),
  field('f_email', 'email', 'Email', 'email'),
  field('f_email2', 'email_2', 'Email', 'text'),
  field('f_v1', 'value', 'Value', 'text'),
  field('f_v2', 'value_2', 'Value', 'number'),
  field('f_v2label', 'value_old', 'Value (2)', 'text'),
  field('f_stage', 'stage', 'Stage', {
    type: 'select',
    options: [
      { label: 'Closed Won', value: 'closed_won' },
      { label: 'New', value: 'new' },
    ],
  }),
  field('f_tags', 'tags', 'Tags', {
    type: 'multi_select',
    options: [
      { label: 'VIP', value: 'vip' },
      { label: 'Partner', value: 'partner' },
    ],
  }),
  field('f_addr', 'address', 'Address', 'object'),
  field('f_enrich', 'enrich', 'Enrich', 'action'),
  field('f_created', 'created_at', 'Created At', { type: 'date', isSystem: true }),
];

export function row(id: string, cells: Row['cells'], extra: Partial<Row> = {}): Row {
  return {
    id,
    tableId: 'tbl_1',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-02T11:00:00.000Z',
    createdByUserId: 'usr_1',
    cells,
    ...extra,
  };
}

import type { Field, Row } from '../../src/service/index.js';
import { choices } from './field-specs.js';

// The schemas and rows the pure tests (filter, records, output) run on, as the service sends them.

/** A field; `type` is its type, or its type with other members (options, isSystem…). */
export function field(id: string, name: string, label: string, type: Field['type'] | (Partial<Field> & Pick<Field, 'type'>)): Field {
  return { id, name, label, options: null, isSystem: false, ...(typeof type === 'string' ? { type } : type) };
}

/**
 * For the filter tests, a realistic schema: every column type, two columns sharing a label ("Email"), a
 * select whose labels differ from its values, a label that equals another column's name ("rank"), and a
 * label that equals another column's ID ("fld_name").
 */
export const FILTER_FIELDS: Field[] = [
  field('fld_name', 'full_name', 'Name', 'text'),
  field('fld_age', 'age', 'Age', 'number'),
  field('fld_active', 'is_active', 'Active', 'boolean'),
  field('fld_signup', 'signup_date', 'Signed up', 'date'),
  field('fld_email', 'email', 'Email', 'email'),
  field('fld_work_email', 'work_email', 'Email', 'email'),
  field('fld_phone', 'phone', 'Phone', 'phone_number'),
  field('fld_site', 'website', 'Website', 'url'),
  field('fld_logo', 'logo', 'Logo', 'image'),
  // Churned's value equals another option's label: the value wins
  field('fld_stage', 'stage', 'Stage', {
    type: 'select',
    options: choices(['Lead', 'opt_lead'], ['Customer', 'opt_customer'], ['On hold', 'opt_hold'], ['Churned', 'Lead']),
  }),
  field('fld_tags', 'tags', 'Tags', {
    type: 'multi_select',
    options: choices(['VIP', 'tag_vip'], ['Partner', 'tag_partner']),
  }),
  field('fld_meta', 'metadata', 'Metadata', 'object'),
  field('fld_score', 'score', 'Score', 'formula'),
  field('fld_enrich', 'enrichment', 'Enrich company', 'action'),
  field('fld_hook', 'payload', 'Payload', 'webhook'),
  field('fld_owner', 'owner', 'Owner', 'member'),
  field('fld_notes', 'notes', 'Notes', 'input'),
  field('fld_rank_label', 'rank_position', 'rank', 'number'),
  field('fld_rank_name', 'rank', 'Rank (old)', 'text'),
  field('fld_alias', 'alias', 'fld_name', 'text'),
  field('fld_created', 'created_at', 'Created at', { type: 'date', isSystem: true }),
];

/**
 * For record shaping: labels shared by two and three columns, a label equal to a meta key, a label that
 * already looks disambiguated, selects whose labels differ from their values, an action column, and a
 * system column.
 */
export const RECORD_FIELDS: Field[] = [
  field('f_ext', 'external_id', '_id', 'text'),
  field('f_name', 'full_name', 'Name', 'text'),
  field('f_email', 'email', 'Email', 'email'),
  field('f_email2', 'email_2', 'Email', 'text'),
  field('f_v1', 'value', 'Value', 'text'),
  field('f_v2', 'value_2', 'Value', 'number'),
  field('f_v2label', 'value_old', 'Value (2)', 'text'),
  field('f_stage', 'stage', 'Stage', {
    type: 'select',
    options: choices(['Closed Won', 'closed_won'], ['New', 'new']),
  }),
  field('f_tags', 'tags', 'Tags', {
    type: 'multi_select',
    options: choices(['VIP', 'vip'], ['Partner', 'partner']),
  }),
  field('f_addr', 'address', 'Address', 'object'),
  field('f_enrich', 'enrich', 'Enrich', 'action'),
  field('f_created', 'created_at', 'Created At', { type: 'date', isSystem: true }),
];

/** A row of table tbl_1 with `cells`. */
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

import type { Field } from '../../src/service/index.js';

// A realistic schema: every column type, two columns sharing a label ("Email"), a select whose
// labels differ from its values, a label that equals another column's name ("rank"), and a
// label that equals another column's ID ("fld_name").

/** A field; `type` is its type, or its type with other members (options, isSystem…). */
function field(id: string, name: string, label: string, type: Field['type'] | (Partial<Field> & Pick<Field, 'type'>)): Field {
  return { id, name, label, options: null, isSystem: false, ...(typeof type === 'string' ? { type } : type) };
}

export const fields: Field[] = [
  field('fld_name', 'full_name', 'Name', 'text'),
  field('fld_age', 'age', 'Age', 'number'),
  field('fld_active', 'is_active', 'Active', 'boolean'),
  field('fld_signup', 'signup_date', 'Signed up', 'date'),
  field('fld_email', 'email', 'Email', 'email'),
  field('fld_work_email', 'work_email', 'Email', 'email'),
  field('fld_phone', 'phone', 'Phone', 'phone_number'),
  field('fld_site', 'website', 'Website', 'url'),
  field('fld_logo', 'logo', 'Logo', 'image'),
  field('fld_stage', 'stage', 'Stage', {
    type: 'select',
    options: [
      { label: 'Lead', value: 'opt_lead' },
      { label: 'Customer', value: 'opt_customer' },
      { label: 'On hold', value: 'opt_hold' },
      { label: 'Churned', value: 'Lead' }, // a value equal to another option's label: the value wins
    ],
  }),
  field('fld_tags', 'tags', 'Tags', {
    type: 'multi_select',
    options: [
      { label: 'VIP', value: 'tag_vip' },
      { label: 'Partner', value: 'tag_partner' },
    ],
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

export function fieldById(id: string): Field {
  const found = fields.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`fixture has no field ${id}`);
  return found;
}

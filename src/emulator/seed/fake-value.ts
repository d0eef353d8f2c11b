import type { FieldRec } from '../store/model.js';
import { pick, type Prng } from './prng.js';
import { CITIES, COMPANIES, FIRST_NAMES, LAST_NAMES, NOTES, slug } from './samples.js';

const DAY_MS = 86_400_000;

/**
 * A plausible value for a column of this type, for rows that churn adds or edits; undefined leaves the cell
 * empty (action and webhook columns, members, selects without options). A system date column gets `at`.
 */
export function fakeValue(field: FieldRec, random: Prng, at: number): unknown {
  if (field.isSystem) return field.type === 'date' ? new Date(at).toISOString() : undefined;
  const first = pick(FIRST_NAMES, random());
  const last = pick(LAST_NAMES, random());
  const company = pick(COMPANIES, random());
  const values = field.options?.map((option) => option.value) ?? [];
  switch (field.type) {
    case 'text':
      return `${first} ${last}`;
    case 'email':
      return `${slug(first)}.${slug(last)}@${slug(company)}.example`;
    case 'phone_number':
      return `+1 555 01${String(Math.floor(random() * 100)).padStart(2, '0')}`;
    case 'url':
      return `https://www.${slug(company)}.example`;
    case 'image':
      return `https://img.example/logos/${slug(company)}.png`;
    case 'number':
    case 'formula':
      return Math.floor(random() * 10_000);
    case 'boolean':
      return random() < 0.5;
    case 'date':
      return new Date(at - Math.floor(random() * 90 * DAY_MS)).toISOString();
    case 'select':
      return values.length > 0 ? pick(values, random()) : undefined;
    case 'multi_select':
      return values.length > 0 ? [...new Set([pick(values, random()), pick(values, random())])] : undefined;
    case 'object':
      return { city: pick(CITIES, random()), country: 'US' };
    case 'input':
      return pick(NOTES, random());
    default:
      return undefined;
  }
}

// Sample words for the demo seed and the generated table, and a plausible value of a column's type for the rows
// churn adds or edits.

import type { FieldRec } from '../store/model.js';
import { pick, type Prng } from './prng.js';

export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Edsger',
  'Hedy',
  'Tim',
  'Radia',
  'Guido',
  'Yukihiro',
  'Anita',
  'John',
  'Sophie',
  'Katherine',
  'Donald',
] as const;

export const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Lamarr',
  'Berners-Lee',
  'Perlman',
  'van Rossum',
  'Matsumoto',
  'Borg',
  'McCarthy',
  'Wilson',
  'Johnson',
  'Knuth',
] as const;

export const COMPANIES = [
  'Initech',
  'Umbrella Corp',
  'Hooli',
  'Vandelay Industries',
  'Stark Industries',
  'Wayne Enterprises',
  'Cyberdyne',
  'Soylent',
  'Tyrell',
  'Wonka Industries',
  'Pied Piper',
  'Aperture Science',
  'Gringotts',
  'Monsters Inc',
  'Oscorp',
  'Black Mesa',
  'Massive Dynamic',
  'Nakatomi Trading',
  'Duff Brewing',
  'Prestige Worldwide',
] as const;

export const CITIES = ['Lisbon', 'Berlin', 'Austin', 'Osaka', 'Nairobi', 'Montréal', 'São Paulo', 'Zürich', 'Kraków', 'Seoul'] as const;

export const NOTES = [
  'Met at the conference; follow up next week.',
  'Prefers email, not calls.',
  'Budget approved, waiting on legal',
  'Asked for a demo, pricing, and a trial',
] as const;

/** Over 200 characters: served cut, with isTruncated and valuePreview. */
export const LONG_NOTE =
  'Long account history: first contact at the spring trade show, then a pilot with two teams, a security review ' +
  'that took three months, a renewal negotiated down by 12%, and a request for SSO, audit logs and a dedicated ' +
  'support channel before the next fiscal year starts. Keep the champion (VP Ops) in the loop on every step.';

export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

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

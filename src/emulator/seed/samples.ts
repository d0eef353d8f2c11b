// Sample words for the demo seed and the generated table.

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

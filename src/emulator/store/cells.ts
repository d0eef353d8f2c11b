import type { DeriveRule, StoredCell } from './model.js';

/** A cell value as text: strings as they are, everything else as JSON text ('' when empty). */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** No value: absent, null, '' or an empty list. */
export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A cell with nothing to show is left out of row responses. */
export function isEmptyCell(cell: StoredCell | undefined): boolean {
  return (
    cell === undefined ||
    (isEmptyValue(cell.value) && (cell.status === undefined || cell.status === null) && isEmptyValue(cell.errorMessage))
  );
}

/** An editable copy of a row's cells: computed cells (getters on a prototype) become plain members. */
export function plainCells(cells: Record<string, StoredCell>): Record<string, StoredCell> {
  const copy: Record<string, StoredCell> = {};
  // for…in on purpose: it lists the computed cells, which are inherited getters.
  for (const id in cells) {
    const cell = cells[id];
    if (cell !== undefined) copy[id] = cell;
  }
  return copy;
}

/** Whether the cells are a plain object (safe to edit in place). */
export function hasPlainCells(cells: Record<string, StoredCell>): boolean {
  return Object.getPrototypeOf(cells) === Object.prototype;
}

export type Derived = { value: unknown } | { error: string };

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * What an emulated action computes from its input:
 *   domain   the domain of an email address or URL ("ada@acme-corp.example" -> "acme-corp.example"); fails without one
 *   company  a company name from that domain ("acme-corp.example" -> "Acme Corp"); fails without a domain
 *   upper    the input's text in upper case
 *   length   the number of characters of the input's text
 *   echo     the input as it is (the default)
 */
export function deriveValue(rule: DeriveRule | undefined, input: unknown): Derived {
  const text = cellText(input).trim();
  switch (rule) {
    case 'domain':
    case 'company': {
      const domain = domainOf(text);
      if (domain === undefined) return { error: `no domain in "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"` };
      return { value: rule === 'domain' ? domain : companyOf(domain) };
    }
    case 'upper':
      return { value: text.toUpperCase() };
    case 'length':
      return { value: Array.from(cellText(input)).length };
    default:
      return { value: input };
  }
}

function domainOf(text: string): string | undefined {
  let host = text.toLowerCase();
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  else if (host.includes('://')) {
    try {
      host = new URL(host).hostname;
    } catch {
      return undefined;
    }
  } else host = host.split('/')[0]!;
  host = host.replace(/^www\./, '');
  return DOMAIN.test(host) ? host : undefined;
}

function companyOf(domain: string): string {
  const labels = domain.split('.');
  const name = labels[labels.length - 2]!;
  return name
    .split('-')
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}

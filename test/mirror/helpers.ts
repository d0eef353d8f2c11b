import { expect } from 'vitest';
import { STAGE_FIELD, TAGS_FIELD } from '../helpers/field-specs.js';
import type { Harness } from '../helpers/emulator-fixture.js';
import { plainFields } from '../helpers/admin-tables.js';

// The mirror's tests: a harness (emulator-fixture.ts: an emulator and tds against it), a table of
// every column type, and the mirror compared with an export of the service, value by value.

/** A table of every column type, made through the emulator's admin route. */
export async function everyTypeTable(
  harness: Harness,
  name = 'Every Type',
): Promise<{ id: string; fields: Array<{ id: string; label: string; type: string }> }> {
  const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string; label: string; type: string }> }>(
    'POST',
    '/tables',
    {
      workspace: 'Sales',
      name,
      emoji: ':test_tube:',
      fields: [
        ...plainFields('Name text', 'Amount number', 'Active boolean', 'Due date'),
        ...plainFields('Email email', 'Phone phone_number', 'Site url', 'Logo image'),
        STAGE_FIELD,
        TAGS_FIELD,
        ...plainFields('Address object', 'Score formula'),
        { label: 'Enrich', type: 'action', action: { from: 'Email', derive: 'domain' } },
        ...plainFields('Owner member', 'Notes input'),
      ],
    },
  );
  return { id: created.table.id, fields: created.fields };
}

let serial = 0;

/** Cell values of every type for row `i`, with a value that does not fit its column now and then. */
export function everyTypeCells(i: number): Record<string, unknown> {
  serial += 1;
  return {
    Name: `Row ${i} ${serial}`,
    Amount: i % 7 === 0 ? 'not a number' : i * 1.5,
    Active: i % 3 === 0,
    Due: i % 11 === 0 ? 'someday' : new Date(Date.UTC(2025, i % 12, 1 + (i % 28))).toISOString(),
    Email: `u${i}@firm${i % 5}.example`,
    Phone: `+1 555 0${i}`,
    Site: `https://firm${i}.example`,
    Logo: `https://img.example/${i}.png`,
    Stage: i % 2 ? 'new' : 'won',
    Tags: i % 4 ? ['vip'] : ['vip', 'smb'],
    Address: { city: `City ${i}`, zip: String(10_000 + i) },
    Score: i % 5,
    Owner: { id: `usr_${i % 3}`, name: `Member ${i % 3}` },
    Notes: i % 13 === 0 ? 'x'.repeat(300) : `note ${i}`,
  };
}

/** The records a tds command writes as NDJSON, by _id. */
async function ndjsonRecords(harness: Harness, args: string[]): Promise<Array<Record<string, unknown>>> {
  const result = await harness.tds(args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .sort((a, b) => (String(a._id) < String(b._id) ? -1 : String(a._id) > String(b._id) ? 1 : 0));
}

/** The mirror table as NDJSON records through `tds sql`. */
export const mirrorRows = (harness: Harness, table: string): Promise<Array<Record<string, unknown>>> =>
  ndjsonRecords(harness, ['sql', `SELECT * FROM ${table}`, '--format', 'ndjson']);

/** Every row of the table as the export sees it now (NDJSON, status columns for every action column). */
export const exportRows = (harness: Harness, tableId: string): Promise<Array<Record<string, unknown>>> =>
  ndjsonRecords(harness, ['rows', tableId, '--format', 'ndjson', '--status-columns']);

/** Field types by export key (labels), from `tds schema`. */
export async function typesByKey(harness: Harness, tableId: string): Promise<Map<string, string>> {
  const result = await harness.tds(['schema', tableId, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  const fields = JSON.parse(result.stdout) as Array<{ label: string; type: string }>;
  return new Map(fields.map((field) => [field.label, field.type]));
}

/**
 * The mirror's value for an export value of a column type, written out here on its own (not with the
 * code under test): numbers, booleans and dates that do not fit are NULL; text columns hold objects
 * as JSON text; JSON columns hold the value itself.
 */
export function expectedMirrorValue(type: string | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))
        ? new Date(value).toISOString()
        : null;
    case 'multi_select':
      return Array.isArray(value) ? value : [value];
    case 'member':
    case 'object':
    case 'webhook':
    case 'formula':
    case 'action':
      return value;
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** The mirror's rows equal the export's, value by value (meta keys, every column, run statuses and errors). */
export function expectMirrorEqualsExport(
  mirror: Array<Record<string, unknown>>,
  exported: Array<Record<string, unknown>>,
  types: Map<string, string>,
): void {
  expect(mirror.map((row) => row._id)).toEqual(exported.map((row) => row._id));
  expect(new Set(mirror.map((row) => row._id)).size).toBe(mirror.length);
  exported.forEach((record, i) => {
    const row = mirror[i]!;
    for (const [key, value] of Object.entries(record)) {
      const where = `${String(record._id)} ${key}`;
      if (key === '_createdAt' || key === '_updatedAt') expect(row[key], where).toBe(new Date(value as string).toISOString());
      else if (key.endsWith('.status')) expect(row[key], where).toBe(value);
      else if (key.endsWith('.error'))
        expect(row[key], where).toBe(value === null ? null : typeof value === 'string' ? value : JSON.stringify(value));
      else if (key.startsWith('_')) expect(row[key], where).toEqual(value);
      else expect(row[key], where).toEqual(expectedMirrorValue(types.get(key), value));
    }
  });
}

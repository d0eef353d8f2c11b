import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { request } from 'undici';
import { expect } from 'vitest';
import { DEFAULT_INGEST_DELAY_MS, type RequestLogEntry, type RunningEmulator } from '../../../src/emulator/index.js';
import type { Harness, HarnessOptions } from '../../helpers/emulator-fixture.js';

/** A harness of the push tests: the seed's two webhook-fed tables at hand. */
export type PushHarness = Harness & {
  /** the Marketing / "Inbox" webhook (0 rows at start) */
  inbox: { id: string; url: string };
  signups: { id: string; url: string };
};

/** The push tests' emulator: rate limits off, and the service's own intake (5 s quiet, at the suite's scale). */
export const PUSH_EMULATOR: HarnessOptions = { ingestDelayMs: DEFAULT_INGEST_DELAY_MS, rateLimits: false };

/** The harness with its Inbox and Signups webhooks. */
export async function withWebhooks(harness: Harness): Promise<PushHarness> {
  const tables = (await api(harness.emu, '/tables')) as { tables: { id: string; name: string }[] };
  const webhookOf = (name: string): { id: string; url: string } => {
    const id = tables.tables.find((table) => table.name === name)!.id;
    return { id, url: harness.webhooks[id]! };
  };
  return Object.assign(harness, { inbox: webhookOf('Inbox'), signups: webhookOf('Signups') });
}

/** GET on the emulator's API with its key, waiting out any 429. */
export async function api(emu: RunningEmulator, path: string): Promise<unknown> {
  for (;;) {
    const response = await request(`${emu.baseUrl}${path}`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    const body = await response.body.json();
    if (response.statusCode === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers['retry-after'] ?? 1) * 1000));
      continue;
    }
    expect(response.statusCode, JSON.stringify(body)).toBe(200);
    return body;
  }
}

/** The posted objects of every row of a webhook-fed table (its webhook column), after flushing intake. */
export async function tablePayloads(emu: RunningEmulator, tableId: string): Promise<unknown[]> {
  emu.flushIntake();
  const schema = (await api(emu, `/tables/${tableId}/schema`)) as { fields: { id: string; type: string }[] };
  const column = schema.fields.find((field) => field.type === 'webhook')!.id;
  const payloads: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = (await api(emu, `/tables/${tableId}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as {
      rows: { cells: Record<string, { value?: unknown; isTruncated?: boolean }> }[];
      nextCursor: string | null;
    };
    for (const row of page.rows) {
      const cell = row.cells[column];
      expect(cell?.isTruncated, 'keep test records under 200 characters of JSON').not.toBe(true);
      payloads.push(cell?.value);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return payloads;
}

/** Same multiset of objects, whatever the order: each expected object exactly once. */
export function expectSameRecords(actual: unknown[], expected: unknown[]): void {
  const key = (value: unknown): string => JSON.stringify(value);
  expect(actual.map(key).sort()).toEqual(expected.map(key).sort());
}

export function webhookPosts(emu: RunningEmulator): RequestLogEntry[] {
  return emu.requestLog.filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
}

export function webhookRequests(emu: RunningEmulator): RequestLogEntry[] {
  return emu.requestLog.filter((entry) => entry.bucket === 'webhook');
}

/**
 * The default journal of a push of the file at `path`, in the data folder's journals/ (`FILE.<16 hex>.tds-journal`);
 * undefined when there is none. `dataDir`: the harness's (TDS_DATA_DIR, `data` in its folder, where its files are).
 */
export async function journalOf(path: string, dataDir = join(dirname(path), 'data')): Promise<string | undefined> {
  const folder = join(dataDir, 'journals');
  const pattern = new RegExp(`^${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f]{16}\\.tds-journal$`);
  const found = (await readdir(folder).catch(() => [] as string[])).filter((name) => pattern.test(name));
  expect(found.length, `journals of ${path}: ${found.join(', ')}`).toBeLessThanOrEqual(1);
  return found[0] === undefined ? undefined : join(folder, found[0]);
}

/** `n` small distinct records, `{"id": 1, "email": "u1@example.com", …}`. */
export function people(n: number, from = 1): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ id: from + i, email: `u${from + i}@example.com`, name: `User ${from + i}` }));
}

export function ndjson(records: unknown[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

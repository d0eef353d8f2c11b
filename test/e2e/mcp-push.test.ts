import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { connectMcp, serviceTables, type McpClient } from './mcp-support.js';

// push_records (only with --allow-push): by key into a webhook saved as @NAME, each record once, its
// journal under the config folder; a URL is refused without being echoed.

let harness: Harness;
let mcp: McpClient;
let inbox: Table;
let webhookUrl: string;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  mcp = await connectMcp(harness, { args: ['--allow-push'] });
  inbox = (await serviceTables(harness.emu)).find((table) => table.name === 'Inbox')!;
  webhookUrl = harness.emu.webhooks[inbox.id]!;
  const saved = await harness.tds(['config', 'set', 'webhook.inbox'], { input: `${webhookUrl}\n` });
  expect(saved.code, saved.stderr).toBe(0);
});
afterAll(() => mcp?.close());

/** The emails of the Inbox table's rows, read straight from the service. */
async function inboxEmails(): Promise<string[]> {
  harness.emu.flushIntake();
  const response = await fetch(`${harness.emu.baseUrl}/tables/${inbox.id}/rows?limit=100`, {
    headers: { authorization: `Bearer ${harness.emu.apiKey}` },
  });
  const { rows } = (await response.json()) as { rows: Array<{ cells: Record<string, { value?: unknown }> }> };
  const email = (await (
    await fetch(`${harness.emu.baseUrl}/tables/${inbox.id}/schema`, { headers: { authorization: `Bearer ${harness.emu.apiKey}` } })
  ).json()) as {
    fields: Array<{ id: string; label: string }>;
  };
  const id = email.fields.find((field) => field.label === 'Email')!.id;
  return rows.map((row) => String(row.cells[id]?.value)).sort();
}

const records = [{ email: 'ada@push.example' }, { email: 'bob@push.example' }, { email: 'ada@push.example' }];

describe('push_records', () => {
  it('is offered with --allow-push', async () => {
    const { tools } = await mcp.client.listTools();
    const push = tools.find((tool) => tool.name === 'push_records')!;
    expect(push.inputSchema.required).toEqual(['webhook', 'table', 'key', 'records']);
    expect(push.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it('pushes by key into a saved webhook, each record once; the summary says what happened', async () => {
    const result = await mcp.call('push_records', { webhook: '@inbox', table: 'Inbox', key: 'email=Email', records });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      records: { read: 3, sent: 2, rejected: 0, uncertain: 0 },
      key: { field: 'email', duplicates: 1, duplicatePairs: [[3, 1]] },
      resumed: false,
      budget: { budget: 50_000, used: 2, left: 49_998 },
    });
    expect(await inboxEmails()).toEqual(['ada@push.example', 'bob@push.example']);
    // the agent sees the table's webhook and what is left of its budget (issue 45)
    const described = await mcp.call('describe_table', { table: 'Inbox' });
    expect(described.structured).toMatchObject({ webhooks: [{ submissions: 2, uncertain: 0, budget: 50_000, left: 49_998 }] });
    expect(described.text).not.toContain(webhookUrl.split('/').pop());
    const journal = result.structured!.journal as string;
    expect(journal.startsWith(join(harness.dir, 'config', 'mcp-push'))).toBe(true);
    expect(await readdir(join(harness.dir, 'config', 'mcp-push'))).toContain(journal.split('/').pop());
  });

  it('the same call again sends nothing (the journal); skip_existing leaves out the keys the table holds', async () => {
    const again = await mcp.call('push_records', { webhook: '@inbox', table: 'Inbox', key: 'email=Email', records });
    expect(again.structured).toMatchObject({ resumed: true, records: { sent: 0, alreadySent: 2 } });
    const more = await mcp.call('push_records', {
      webhook: '@inbox',
      table: inbox.id,
      key: 'email=Email',
      records: [{ email: 'bob@push.example' }, { email: 'cy@push.example' }],
      skip_existing: true,
    });
    expect(more.isError, more.text).toBe(false);
    expect(more.structured).toMatchObject({ records: { read: 2, sent: 1 }, key: { existing: 1 } });
    expect(await inboxEmails()).toEqual(['ada@push.example', 'bob@push.example', 'cy@push.example']);
  });

  it('refuses a webhook URL without echoing it, and tells a record without its key', async () => {
    const refused = await mcp.call('push_records', { webhook: webhookUrl, table: 'Inbox', key: 'email=Email', records });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^tds: webhook: give the name of a saved webhook, as @NAME; a URL is refused\nhint: /);
    const unknown = await mcp.call('push_records', { webhook: '@nope', table: 'Inbox', key: 'email=Email', records });
    expect(unknown.text).toMatch(/^tds: no webhook named "nope" in profile "default"/);
    const keyless = await mcp.call('push_records', {
      webhook: '@inbox',
      table: 'Inbox',
      key: 'email=Email',
      records: [{ mail: 'x@push.example' }],
    });
    expect(keyless.isError).toBe(true);
    expect(keyless.text).toMatch(/^tds: push incomplete: 1 records? (was|were) rejected/);
    expect(keyless.text).toContain('rejected: record 1: no key: it has no "email"');
    const secret = webhookUrl.split('/').pop()!;
    for (const text of [refused.text, unknown.text, keyless.text, mcp.stderr()]) expect(text).not.toContain(secret);
  });
});

import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import type { SpawnedTds } from '../helpers/spawn-tds.js';
import { serviceTables } from './mcp-support.js';

// What goes over the wire, seen raw: stdout holds JSON-RPC messages and not one other byte, while the
// server logs (--verbose: every request) on stderr; the API key and the webhook URL appear in neither.

let harness: Harness;
let webhookUrl: string;
/** the demo's webhook-fed table whose Email column takes the posted `email` */
let inbox: string;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  inbox = (await serviceTables(harness)).find((table) => table.name === 'Inbox')!.id;
  webhookUrl = harness.webhooks[inbox]!;
  const saved = await harness.run(['config', 'set', 'webhook.inbox'], { input: `${webhookUrl}\n` });
  expect(saved.code, saved.stderr).toBe(0);
});

/** A server spoken to line by line: each request's answer, the notifications, all of stdout and stderr. */
class RawServer {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  private readonly run: SpawnedTds;
  private nextId = 1;
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.run = harness.spawn(['mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'], openStdin: true });
    this.child = this.run.child;
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') this.waiting.get(message.id)?.(message);
    });
    this.exited = this.run.exit;
  }

  get stderr(): string {
    return this.run.stderr();
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }

  notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }
}

/** Whether a tools/call answer is a failure (a success carries no isError). */
const failed = (answer: Record<string, unknown>): boolean => (answer.result as { isError?: boolean } | undefined)?.isError === true;

describe('tds mcp on the wire', () => {
  it('writes JSON-RPC on stdout and nothing else, logs on stderr, never a secret; ends when stdin does', async () => {
    const server = new RawServer(['--verbose', '--allow-push']);
    const init = await server.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(init).toMatchObject({ result: { serverInfo: { name: 'tds' }, capabilities: { tools: {} } } });
    server.notify('notifications/initialized');
    await server.request('tools/list');
    const sync = await server.request('tools/call', {
      name: 'sync_tables',
      arguments: { tables: ['Leads'] },
      _meta: { progressToken: 'p1' },
    });
    expect(failed(sync), JSON.stringify(sync)).toBe(false);
    expect(server.lines.some((line) => line.includes('"notifications/progress"'))).toBe(true);
    await server.request('tools/call', { name: 'search_rows', arguments: { table: 'Leads', limit: 2 } });
    const pushed = await server.request('tools/call', {
      name: 'push_records',
      arguments: { webhook: '@inbox', table: inbox, key: 'email=Email', records: [{ email: 'wire@x.example' }] },
    });
    expect(failed(pushed), JSON.stringify(pushed)).toBe(false);
    const refused = await server.request('tools/call', {
      name: 'push_records',
      arguments: { webhook: webhookUrl, table: inbox, key: 'email=Email', records: [{ email: 'wire@x.example' }] },
    });
    expect(failed(refused)).toBe(true);
    const badKey = await server.request('tools/call', { name: 'describe_table', arguments: { table: harness.apiKey } });
    expect(failed(badKey)).toBe(true);

    server.child.stdin!.end();
    expect(await server.exited).toBe(0);
    for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(server.lines.length).toBeGreaterThanOrEqual(7);
    // the logs went to stderr: each request (--verbose), each failure, the end
    expect(server.stderr).toMatch(/GET .*\/tables .*200/);
    expect(server.stderr).toMatch(/tds mcp: push_records failed: webhook: give the name of a saved webhook/);
    expect(server.stderr).toMatch(/tds mcp: stopping: the client closed the connection\n/);
    expect(server.stderr).toMatch(/tds mcp: stopped\n$/);
    const webhookId = webhookUrl.split('/').pop()!;
    for (const text of [server.lines.join('\n'), server.stderr]) {
      expect(text).not.toContain(harness.apiKey);
      expect(text).not.toContain(webhookUrl);
      expect(text).not.toContain(webhookId);
    }
  });
});

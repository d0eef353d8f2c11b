import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { TDS_BIN, runTds, type RunOptions, type RunResult } from '../helpers/cli.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// A real MCP client (the SDK's Client and its stdio transport) that spawns `bin/tds.js mcp` against an
// emulator in this process, with a temporary config folder and mirror; and the CLI against the same.

export interface McpBench {
  emu: RunningEmulator;
  dir: string;
  /** the mirror file */
  db: string;
  /** the environment the server (and `tds`) runs with */
  env: Record<string, string>;
  client: Client;
  /** what the server wrote on stderr (its log) */
  stderr(): string;
  /** every error the client saw on the wire (a line that is not JSON-RPC, …) */
  wireErrors: Error[];
  /** a tool call; its result's text and structured content */
  call(name: string, args?: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<ToolResult>;
  tds(args: string[], options?: RunOptions): Promise<RunResult>;
  /** An emulator-only admin route (`/_emulator` + path): its JSON answer. */
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** ends the client (stdin closed, as a client going away does), then the emulator */
  close(): Promise<void>;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** The emulator's rate windows and the client's pacing run this many times faster (unless told otherwise). */

export interface McpBenchOptions {
  /** after `tds mcp` */
  args?: string[];
  emulator?: EmulatorOptions;
  /** TDS_RATE_SCALE of the server (default RATE_SCALE, the emulator's; slower only, never faster) */
  rateScale?: number;
  env?: Record<string, string | undefined>;
}

export async function startMcp(options: McpBenchOptions = {}): Promise<McpBench> {
  const emu = await startEmulator({ port: 0, ingestDelayMs: 20, actionDelayMs: 0, rateScale: RATE_SCALE, ...options.emulator });
  const dir = await mkdtemp(join(tmpdir(), 'tds-mcp-'));
  const db = join(dir, 'mirror.duckdb');
  const env = cleanEnv({
    TDS_BASE_URL: emu.baseUrl,
    TDS_API_KEY: emu.apiKey,
    TDS_RATE_SCALE: String(options.rateScale ?? RATE_SCALE),
    TDS_DB: db,
    TDS_CONFIG_DIR: join(dir, 'config'),
    ...options.env,
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TDS_BIN, 'mcp', ...(options.args ?? [])],
    env,
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'tds-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (error) => wireErrors.push(error);
  await client.connect(transport);
  return {
    emu,
    dir,
    db,
    env,
    client,
    stderr: () => stderr,
    wireErrors,
    async call(name, args = {}, callOptions) {
      const result = await client.callTool({ name, arguments: args }, callOptions);
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        isError: result.isError === true,
        text: content.map((block) => block.text ?? '').join('\n'),
        structured: result.structuredContent as Record<string, unknown> | undefined,
      };
    },
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${emu.baseUrl.replace(/\/v1$/, '')}/_emulator${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as T;
      if (!response.ok) throw new Error(`${method} /_emulator${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    },
    tds: (args, runOptions = {}) => runTds(args, { ...runOptions, cwd: runOptions.cwd ?? dir, env: { ...env, ...runOptions.env } }),
    async close() {
      await client.close();
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** This process's environment without TDS_* settings or colour, plus `extra` (undefined removes a variable). */
function cleanEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TDS_') && key !== 'FORCE_COLOR') env[key] = value;
  }
  env.NO_COLOR = '1';
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

import { McpServer, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { z } from 'zod';
import { type Context, TdsError, UsageError, redactSecrets } from '../core/index.js';
import { Session, type McpServeOptions } from './session.js';
import { boundText, toolFailure, toolSuccess, callContext, ToolFailure, type Tool, type ToolCall } from './tool.js';
import { Writable } from 'node:stream';
import { checkTablesTool } from './tools/check-tables.js';
import { describeTableTool } from './tools/describe-table.js';
import { diffTableTool } from './tools/diff-table.js';
import { listTablesTool } from './tools/list-tables.js';
import { querySqlTool } from './tools/query-sql.js';
import { searchRowsTool } from './tools/search-rows.js';
import { syncTablesTool } from './tools/sync-tables.js';
import { tableStatsTool } from './tools/table-stats.js';

const INSTRUCTIONS = `tds gives you the organization's tables (workspaces → tables → typed columns and rows) and a local DuckDB mirror of them.
Start with list_tables, then describe_table. For counts, sums, groupings and joins use query_sql over the mirror (after sync_tables has mirrored the tables): it is fast and costs the service nothing. search_rows reads live rows from the service for a table that is not mirrored (a few rows, within the organization's row-read limit). table_stats profiles a mirrored table (fill, values, run states, failure causes); diff_table says what changed between syncs.
Results are capped (rows and text); a cut result says truncated: true with the full row count: aggregate instead of paging through rows.`;

/**
 * `tds mcp`: the tools on stdio until the client closes stdin or the Context's signal ends the
 * server; then every call still running is interrupted (its signal aborts) and waited for, and the
 * mirror and the client are closed. stdout carries the protocol's messages and nothing else.
 */
export async function serveMcp(ctx: Context, options: McpServeOptions): Promise<void> {
  const stdout = claimStdout();
  const end = new AbortController();
  const session = new Session({ ...ctx, signal: AbortSignal.any([ctx.signal, end.signal]) }, options);
  const running = new Set<Promise<unknown>>();
  const server = new McpServer({ name: 'tds', version: options.version }, { instructions: INSTRUCTIONS });
  const tools: string[] = [];
  await addTools(session, {
    add: (tool) => {
      tools.push(tool.name);
      registerTool(server, session, tool, running);
    },
  });
  try {
    const closed = new Promise<string>((resolve) => {
      session.ctx.signal.addEventListener('abort', () => resolve('SIGTERM or Ctrl-C'), { once: true });
      server.server.onclose = () => resolve('the client closed the connection');
    });
    await server.connect(new StdioServerTransport(process.stdin, stdout.stream));
    log(session, `serving ${tools.length} tools on stdio${options.allowPush ? ' (push_records allowed)' : ''}`);
    log(session, `mirror ${options.db.path} (from ${options.db.from})`);
    log(session, `checks file ${options.checks.path} (from ${options.checks.from})`);
    const why = await closed;
    end.abort(new TdsError('INTERRUPTED', 'the MCP server is stopping'));
    const calls = running.size === 0 ? '' : `; interrupting ${running.size} running ${running.size === 1 ? 'call' : 'calls'}`;
    log(session, `stopping: ${why}${calls}`);
    await Promise.allSettled([...running]);
  } finally {
    await server.close().catch(() => undefined);
    await session.close();
    stdout.release();
    log(session, 'stopped');
  }
}

function registerTool<S extends z.ZodObject>(server: McpServer, session: Session, tool: Tool<S>, running: Set<Promise<unknown>>): void {
  const { title, description, input, output, annotations } = tool;
  server.registerTool<z.ZodObject, z.ZodObject>(
    tool.name,
    { title, description, inputSchema: input, outputSchema: output, annotations },
    // the SDK has checked the arguments against `input`
    (args, mcp) => {
      const work = runTool(session, tool, args as z.output<S>, mcp);
      running.add(work);
      void work.finally(() => running.delete(work));
      return work;
    },
  );
}

/** One call: its result, or its failure as an `isError` result; never a thrown error. */
async function runTool<S extends z.ZodObject>(
  session: Session,
  tool: Tool<S>,
  args: z.output<S>,
  mcp: ServerContext,
): Promise<CallToolResult> {
  const signal = AbortSignal.any([mcp.mcpReq.signal, session.ctx.signal]);
  const call = callContext(session.ctx, signal);
  const token = mcp.mcpReq._meta?.progressToken;
  const progress: ToolCall['progress'] = (update) => {
    if (token === undefined || signal.aborted) return;
    void mcp.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => undefined);
  };
  const started = performance.now();
  try {
    const result = await tool.run(args, { session, call, signal, progress });
    session.ctx.verbose(`tds mcp: ${tool.name} answered in ${Math.round(performance.now() - started)} ms`);
    return withinCap(session, tool.name, toolSuccess(result));
  } catch (error) {
    const cause = error instanceof ToolFailure ? error.failure : error;
    const detail = cause instanceof TdsError ? cause.message : cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
    log(session, `${tool.name} failed: ${detail}`);
    const options = { hintsOf: session.options.hintsOf, secrets: session.secrets, maxBytes: session.caps.maxBytes };
    if (error instanceof ToolFailure) return toolFailure(error.failure, { ...options, detail: error.detail });
    return toolFailure(error, options);
  }
}

/** A result whose text the tool could not cut to the server's --max-bytes (its envelope alone is larger) becomes a failure that says so. */
function withinCap(session: Session, tool: string, result: CallToolResult): CallToolResult {
  const text = (result.content[0] as { text: string }).text;
  const bytes = Buffer.byteLength(text, 'utf8');
  const { maxBytes } = session.caps;
  if (bytes <= maxBytes) return result;
  log(session, `${tool}: a result of ${bytes} bytes was not sent (--max-bytes ${maxBytes})`);
  const error = new UsageError(
    `the result of ${tool} is ${bytes.toLocaleString('en-US')} bytes even cut, more than the server's --max-bytes ${maxBytes.toLocaleString('en-US')}`,
    {
      hint: 'ask for less: fewer or shorter columns, or a narrower question',
    },
  );
  return toolFailure(error, { hintsOf: session.options.hintsOf, secrets: session.secrets, maxBytes });
}

/** One line on stderr, the server's log (secrets redacted, then cut to MAX_LINE_CHARS: an argument may be megabytes). */
function log(session: Session, line: string): void {
  session.ctx.io.stderr.write(`tds mcp: ${boundText(redactSecrets(line, session.secrets))}\n`);
}

/** The stream the protocol writes to, and how to give process.stdout back. */
export interface ProtocolStdout {
  stream: Writable;
  release(): void;
}

/**
 * stdout carries protocol messages only: the transport gets a stream of its own onto it, and any other
 * write to process.stdout (a library's console.log, a stray progress line) goes to stderr instead.
 */
export function claimStdout(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): ProtocolStdout {
  const write = stdout.write;
  const original = write.bind(stdout);
  stdout.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), done?: () => void) => {
    const callback = typeof encoding === 'function' ? encoding : done;
    if (typeof chunk === 'string' && typeof encoding === 'string') return stderr.write(chunk, encoding, callback);
    return stderr.write(chunk, callback);
  }) as typeof stdout.write;
  const stream = new Writable({
    // one message after the other, each acknowledged once stdout took it: the transport waits on 'drain'
    write(chunk: Buffer, _encoding, callback) {
      original(chunk, (error) => callback(error ?? undefined));
    },
  });
  return {
    stream,
    release: () => {
      stdout.write = write;
    },
  };
}

/** Where the tools go (the server registers each). */
interface ToolSink {
  add<S extends z.ZodObject>(tool: Tool<S>): void;
}

/**
 * Every tool of docs/cli.md "MCP", in its order; push_records only with --allow-push (its definition
 * names the push's own limits, so the push code is loaded only when it is offered).
 */
async function addTools(session: Session, sink: ToolSink): Promise<void> {
  sink.add(listTablesTool(session));
  sink.add(describeTableTool(session));
  sink.add(querySqlTool(session));
  sink.add(tableStatsTool(session));
  sink.add(diffTableTool(session));
  sink.add(syncTablesTool(session));
  sink.add(searchRowsTool(session));
  if (session.options.allowPush) sink.add((await import('./tools/push-records.js')).pushRecordsTool(session));
  sink.add(checkTablesTool(session));
}

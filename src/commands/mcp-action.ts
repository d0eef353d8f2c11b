import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type Context, UsageError, redactSecrets, TDS_VERSION } from '../core/index.js';
import { resolveSettings, DEFAULT_CHECKS_FILE } from '../config/index.js';
import { DEFAULT_CAPS, serveMcp } from '../mcp/index.js';
import { hintsOf } from './hints.js';

export interface McpFlags {
  db?: string;
  checks?: string;
  allowPush?: boolean;
  maxRows?: number;
  maxBytes?: number;
}

/**
 * `tds mcp`: the server on stdio until the client goes (stdin ends), SIGTERM or Ctrl-C; a tool still
 * running then is interrupted and waited for, so the mirror is left consistent.
 */
export async function mcpAction(ctx: Context, flags: McpFlags, command: Command): Promise<void> {
  const globals = command.optsWithGlobals<{ apiKeyFile?: string; profile?: string }>();
  if (globals.apiKeyFile === '-') {
    throw new UsageError('tds mcp reads protocol messages on stdin: --api-key-file - cannot give it the key', {
      hint: 'give --api-key-file a file, set TDS_API_KEY, or save the key with `tds config set api-key`',
    });
  }
  const { settings, sources } = await resolveSettings(ctx, command);
  // a client starts the server in a folder of its own choosing: both files are made absolute now, and said
  const db = { path: resolve(settings.db), from: sources.db };
  const checks = flags.checks
    ? { path: resolve(flags.checks), from: '--checks' }
    : settings.checks
      ? { path: resolve(settings.checks), from: sources.checks ?? 'the settings' }
      : { path: resolve(DEFAULT_CHECKS_FILE), from: `the default (${DEFAULT_CHECKS_FILE} in the working folder)` };
  const terminated = new AbortController();
  const onTerm = (): void => terminated.abort();
  // a promise a library left to fail unheard must not end the server (Node's default): it is logged
  const onRejection = (reason: unknown): void => {
    const text = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    ctx.io.stderr.write(`tds mcp: unexpected failure (the server goes on): ${redactSecrets(text, [settings.apiKey])}\n`);
  };
  process.once('SIGTERM', onTerm);
  process.on('unhandledRejection', onRejection);
  try {
    await serveMcp(
      { ...ctx, signal: AbortSignal.any([ctx.signal, terminated.signal]) },
      {
        db,
        checks,
        allowPush: Boolean(flags.allowPush),
        caps: { maxRows: flags.maxRows ?? DEFAULT_CAPS.maxRows, maxBytes: flags.maxBytes ?? DEFAULT_CAPS.maxBytes },
        version: TDS_VERSION,
        ...(globals.profile ? { profile: globals.profile } : {}),
        delivery: {
          rateScale: settings.rateScale,
          maxRetries: settings.maxRetries,
          timeoutMs: settings.timeoutMs,
          webhookBudget: settings.webhookBudget,
          tableCapacity: settings.tableCapacity,
        },
        // the HTTP core is loaded by the first tool that asks the service
        connect: async (signal) => (await import('./connect.js')).connectWith({ ...ctx, signal }, settings),
        hintsOf,
        secrets: settings.apiKey ? [settings.apiKey] : [],
      },
    );
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('unhandledRejection', onRejection);
  }
  // Ctrl-C: exit 130 like every command (main.ts); the end of stdin or SIGTERM is a normal end
  ctx.signal.throwIfAborted();
}

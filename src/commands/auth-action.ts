// The action of `tds auth check`.

import type { Command } from 'commander';
import { type Context, TdsError } from '../core/index.js';
import { redactKey, resolveSettings } from '../config/index.js';
import { connectWith } from './connect.js';
import { errorCodeOf } from '../http/index.js';

const AUTH_CHECK_RETRIES = 1;

/** `tds auth check`: what the settings are and where each comes from, then one request. */
export async function authCheckAction(ctx: Context, cmd: Command): Promise<void> {
  const { settings, sources } = await resolveSettings(ctx, cmd);
  const say = (label: string, text: string): void => void ctx.io.stderr.write(`${label.padEnd(9)} ${text}\n`);
  say('base URL', settings.baseUrl ? `${settings.baseUrl} (from ${sources.baseUrl})` : 'not set');
  say('API key', settings.apiKey ? `${redactKey(settings.apiKey)} (from ${sources.apiKey})` : 'not set');
  const client = connectWith(ctx, settings, { maxRetries: settings.maxRetries ?? AUTH_CHECK_RETRIES });
  try {
    const started = performance.now();
    const { workspaces } = await client.workspaces();
    const ms = Math.round(performance.now() - started);
    const count = `${workspaces.length} workspace${workspaces.length === 1 ? '' : 's'}`;
    say(ctx.io.color.green('ok'), `key accepted, subscription active; the organization has ${count} (${ms} ms)`);
  } catch (error) {
    throw explain(error, sources.baseUrl);
  } finally {
    await client.close();
  }
}

/** The client's error, told as an answer to "is my set-up right?". */
function explain(error: unknown, baseUrlSource: string | undefined): unknown {
  if (!(error instanceof TdsError)) return error;
  if (error.code === 'AUTH') {
    return new TdsError('AUTH', `the service refused the API key (HTTP ${error.status ?? 401})`, {
      ...(error.reason ? { reason: error.reason } : {}),
      cause: error,
    });
  }
  if (error.code === 'PAUSED') {
    const message = `the API key is valid but the organization's subscription is paused (HTTP ${error.status ?? 402})`;
    return new TdsError('PAUSED', message, {
      hint: 'an admin can resume the subscription in the app; until then every key request answers 402',
      cause: error,
    });
  }
  const code = errorCodeOf(error.cause);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TdsError(error.code, `cannot reach the service: ${error.message}`, {
      hint: `is the service running at that address? the base URL comes from ${baseUrlSource ?? 'nowhere'}`,
      cause: error,
    });
  }
  return error;
}

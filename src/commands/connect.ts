import type { Command } from 'commander';
import { type Context, TdsError, UsageError } from '../core/index.js';
import { loadSettings, type Settings } from '../config/index.js';
import { parseBaseUrl, ApiClient, serviceTimings } from '../http/index.js';

// The API client for the resolved settings: the one place a command gets its connection to the service.

/** loadSettings + the checks of connectWith. */
export async function connect(ctx: Context, command: Command): Promise<ApiClient> {
  return connectWith(ctx, await loadSettings(ctx, command));
}

/**
 * A client for these settings, or a clear error saying what to set: the base URL (USAGE), a base URL
 * that is not https outside loopback (USAGE), the key (AUTH, as exit 3 of docs/cli.md "Exit codes").
 */
export function connectWith(ctx: Context, settings: Settings, overrides: { maxRetries?: number } = {}): ApiClient {
  if (!settings.baseUrl) {
    throw new UsageError('no base URL is set', {
      hint: 'pass --base-url URL, set TDS_BASE_URL, or save it with `tds config set base-url URL`',
    });
  }
  parseBaseUrl(settings.baseUrl);
  if (!settings.apiKey) {
    throw new TdsError('AUTH', 'no API key is set', {
      hint: 'set TDS_API_KEY, pass --api-key-file PATH (- for stdin), or save it with `tds config set api-key`',
    });
  }
  return new ApiClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRetries: overrides.maxRetries ?? settings.maxRetries,
    timeoutMs: settings.timeoutMs,
    timings: serviceTimings(settings.rateScale),
    ...(settings.proxy ? { proxy: settings.proxy } : {}),
    ...(ctx.isVerbose?.() === false ? {} : { log: (line: string) => ctx.verbose(line) }),
    signal: ctx.signal,
  });
}

/** Runs `work` with a client for these settings and closes it afterwards. */
export async function withClient<T>(ctx: Context, settings: Settings, work: (client: ApiClient) => Promise<T>): Promise<T> {
  const client = connectWith(ctx, settings);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** A sync first needs the base URL and the key: without one, `what` fails, and the hint offers --no-sync to `instead`. */
export function requireService(settings: Settings, what: string, instead: string): void {
  if (settings.baseUrl && settings.apiKey) return;
  const missing = settings.baseUrl ? 'API key' : 'base URL';
  throw new TdsError(settings.baseUrl ? 'AUTH' : 'USAGE', `${what} first, and no ${missing} is set`, {
    hint: `set ${settings.baseUrl ? 'TDS_API_KEY (or --api-key-file)' : 'TDS_BASE_URL (or --base-url)'}, or add --no-sync to ${instead}`,
  });
}

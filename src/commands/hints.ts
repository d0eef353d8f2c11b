import type { FailureReason } from '../core/index.js';

// Advice for failures the lower layers can only name: here, where commands, flags and settings are known.

const HINTS: Record<FailureReason, string> = {
  'bad-key':
    'check the API key (--api-key-file, TDS_API_KEY or `tds config set api-key`), ' +
    "or have an admin rotate it in the app's API key settings",
  paused: "the organization's subscription is paused; an admin can resume it in the app",
  'table-not-found': 'the table does not exist in this organization; `tds tables` lists the ones that do',
  'unknown-table': '`tds tables` lists the tables this API key can read',
  'unknown-workspace': '`tds workspaces` lists the workspaces this API key can read',
  unreachable: 'is the service running at that address? check --base-url, TDS_BASE_URL or `tds config get base-url`',
  network: 'check your connection; try again later or raise --max-retries',
  proxy: 'check HTTPS_PROXY, HTTP_PROXY and NO_PROXY, and whether the proxy lets this machine reach that host',
  'retries-exhausted': 'the service kept failing; try again later or raise --max-retries',
  'rate-limit-exhausted': 'the service kept rate-limiting; try again later or raise --max-retries',
  'bad-base-url': 'give it as https://HOST/v1 with --base-url, TDS_BASE_URL or `tds config set base-url URL`',
  'bad-key-text': 'check the key file or TDS_API_KEY: it should hold the key alone',
};

/** The hint lines of an error: the advice for its reason, then its own hint. */
export function hintsOf(error: { reason?: FailureReason; hint?: string }): string | undefined {
  const parts = [error.reason ? HINTS[error.reason] : undefined, error.hint].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join('; ') : undefined;
}

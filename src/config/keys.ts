import { UsageError, parseIntegerOption, parseNumberOption, redactWebhookUrl } from '../core/options.js';
import { OUTPUT_FORMATS } from '../output/options.js';
// read at start-up by the command definitions: light files only (http/index.ts would load the client)
import { parseBaseUrl, checkKeyText } from '../http/connection-settings.js';

/** The checks file when none is named (and the `checks` setting names none). */
export const DEFAULT_CHECKS_FILE = 'tds-checks.yaml';
/** The profile a run reads when none is named. */
export const DEFAULT_PROFILE = 'default';
/** The profile key that says where its API key is kept (`keychain`; absent or `file`: in config.json). */
export const KEY_STORE = 'api-key-store';

// The keys a profile can hold, how each value is checked, and how it may be shown.

export interface ConfigKey {
  name: string;
  /** Read from stdin or a hidden prompt, never argv; shown only redacted. */
  secret: boolean;
  description: string;
  /** Checks a value and returns the text to store; throws UsageError. */
  normalize(value: string): string;
}

const WEBHOOK_PREFIX = 'webhook.';

/** A path setting: any text but an empty one. */
const named =
  (key: string, what: 'file' | 'folder') =>
  (value: string): string => {
    if (value.trim() === '') throw new UsageError(`${key} needs a ${what} name`);
    return value;
  };
const NOTIFY_PREFIX = 'notify.';

/** A limit of the service's: a whole number, or `off`. */
const countOrOff =
  (key: string) =>
  (value: string): string =>
    value.trim().toLowerCase() === 'off' ? 'off' : String(parseIntegerOption(key, 0, 1e9)(value.trim()));
const WEBHOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const KEYS: ConfigKey[] = [
  {
    name: 'base-url',
    secret: false,
    description: 'service base URL, ending in /v1',
    normalize: (value) => parseBaseUrl(value).href,
  },
  {
    name: 'api-key',
    secret: true,
    description: 'the organization API key (read from stdin or a hidden prompt)',
    normalize: (value) => {
      checkKeyText(value);
      return value;
    },
  },
  {
    name: 'api-key-store',
    secret: false,
    description: 'where api-key is kept: keychain (the OS keychain) or file (set by `tds config set api-key`)',
    normalize: () => {
      throw new UsageError('api-key-store follows where `tds config set api-key` put the key', {
        hint: 'move the key with `tds config migrate-key --to keychain` or `--to file`',
      });
    },
  },
  {
    name: 'default-format',
    secret: false,
    description: `output format when --format is not given: ${OUTPUT_FORMATS.join(', ')}`,
    normalize: (value) => {
      if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
        throw new UsageError(`default-format must be one of ${OUTPUT_FORMATS.join(', ')} (got "${value}")`);
      }
      return value;
    },
  },
  {
    name: 'max-retries',
    secret: false,
    description: 'retries of a failed read before giving up',
    normalize: (value) => String(parseIntegerOption('max-retries', 0, 20)(value)),
  },
  {
    name: 'timeout',
    secret: false,
    description: 'connect and stalled-response timeout, in seconds',
    normalize: (value) => String(parseNumberOption('timeout', 0.1, 3600)(value)),
  },
  {
    name: 'max-stale',
    secret: false,
    description: 'tds sync --max-stale: a table verified longer ago gets a full pass (30m, 24h, 7d, or off)',
    normalize: (value) => {
      if (!/^(off|\d+(\.\d+)?\s*[smhdw])$/i.test(value.trim())) {
        throw new UsageError(`max-stale must be a duration (30m, 24h, 7d) or off (got "${value}")`);
      }
      return value.trim().toLowerCase();
    },
  },
  {
    name: 'db',
    secret: false,
    description: 'the mirror file of tds sync and tds sql (default: tds.duckdb in the current folder)',
    normalize: named('db', 'file'),
  },
  {
    name: 'checks',
    secret: false,
    description: `the checks file of tds check (default: ${DEFAULT_CHECKS_FILE} in the current folder)`,
    normalize: named('checks', 'file'),
  },
  {
    name: 'webhook-budget',
    secret: false,
    description: 'submissions a webhook takes in its lifetime, which tds push keeps to (default 50000; off)',
    normalize: countOrOff('webhook-budget'),
  },
  {
    name: 'table-capacity',
    secret: false,
    description: 'rows a table holds, which tds push warns about before it sends (default 50000; off)',
    normalize: countOrOff('table-capacity'),
  },
  {
    name: 'lake',
    secret: false,
    description: 'the folder tds sync writes its changes to as Parquet (as --lake DIR)',
    normalize: named('lake', 'folder'),
  },
];

const WEBHOOK_DESCRIPTION =
  'saved webhook URLs of one table, used as `tds push @NAME` and filled in order (read from stdin or a hidden prompt: one, or several on lines or comma-separated; --add appends)';

const webhookKey = (name: string, description = WEBHOOK_DESCRIPTION): ConfigKey => ({
  name,
  secret: true,
  description,
  // a webhook's name holds a list (kept space-separated: a URL has no space); a notification URL is one
  normalize: (value) => (name.startsWith(NOTIFY_PREFIX) ? checkedUrl(value) : webhookUrls(value).map(checkedUrl).join(' ')),
});

function checkedUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError('the webhook URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('the webhook URL must use https://');
  return url.href;
}

/**
 * The webhook URLs of a saved name, in order: as stored (space-separated), or as given (one a line, or
 * comma-separated; a comma splits only before the next URL's scheme).
 */
export function webhookUrls(text: string): string[] {
  return text
    .split(/\s+|,\s*(?=[a-z][a-z0-9+.-]*:\/\/)/i)
    .map((url) => url.trim())
    .filter((url) => url !== '');
}

export function configKey(name: string): ConfigKey {
  const known = KEYS.find((key) => key.name === name);
  if (known) return known;
  if (name.startsWith(NOTIFY_PREFIX)) {
    const receiver = name.slice(NOTIFY_PREFIX.length);
    if (!WEBHOOK_NAME.test(receiver)) throw new UsageError(`"${receiver}" is not a notification name: use letters, digits, - and _`);
    return webhookKey(name, NOTIFY_DESCRIPTION);
  }
  if (name.startsWith(WEBHOOK_PREFIX)) {
    const webhook = name.slice(WEBHOOK_PREFIX.length);
    if (!WEBHOOK_NAME.test(webhook)) {
      throw new UsageError(`"${webhook}" is not a webhook name: use letters, digits, - and _`);
    }
    return webhookKey(name);
  }
  throw new UsageError(`unknown config key "${name}"`, { hint: `known keys: ${configKeyNames().join(', ')}` });
}

export function configKeyNames(): string[] {
  return [...KEYS.map((key) => key.name), `${WEBHOOK_PREFIX}NAME`, `${NOTIFY_PREFIX}NAME`];
}

export function configKeyHelp(): string {
  return [...KEYS, webhookKey(`${WEBHOOK_PREFIX}NAME`), webhookKey(`${NOTIFY_PREFIX}NAME`, NOTIFY_DESCRIPTION)]
    .map((key) => `  ${key.name.padEnd(16)} ${key.description}`)
    .join('\n');
}

export function webhookConfigKey(name: string): string {
  return `${WEBHOOK_PREFIX}${name}`;
}

const NOTIFY_DESCRIPTION = 'a saved notification URL (Slack, Teams or any receiver of JSON), used as `tds check --notify @NAME`';

export function notifyConfigKey(name: string): string {
  return `${NOTIFY_PREFIX}${name}`;
}

/** Whether `name` is a saved webhook's key (`webhook.NAME`: a list of URLs). */
export function isWebhookKey(name: string): boolean {
  return name.startsWith(WEBHOOK_PREFIX);
}

/** A value as `config get` and `config list` show it: secrets redacted. */
export function displayValue(name: string, value: string): string {
  if (name.startsWith(WEBHOOK_PREFIX)) return webhookUrls(value).map(redactWebhookUrl).join(', ');
  // a notification URL's secret may be any part of its path (Slack's, Teams'): only its host is shown
  if (name.startsWith(NOTIFY_PREFIX)) return URL.canParse(value) ? `${new URL(value).origin}/…` : '****';
  const known = KEYS.find((key) => key.name === name);
  return known && !known.secret ? value : redactKey(value);
}

/** `****abcd`: the last four characters of a long key, enough to tell keys apart. */
export function redactKey(key: string): string {
  return key.length >= 16 ? `****${key.slice(-4)}` : '****';
}

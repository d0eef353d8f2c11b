// Secrets never reach output: the API key and webhook URLs are shown only redacted.

/** A webhook URL as it may be shown: scheme, host and the last 4 characters of its id. */
export function redactWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/').filter(Boolean);
    const id = segments.pop() ?? '';
    const shown = id.length > 8 ? `…${id.slice(-4)}` : '…';
    return `${parsed.protocol}//${parsed.host}/${[...segments, shown].join('/')}`;
  } catch {
    return '<webhook URL>';
  }
}

/** Replaces every occurrence of each secret in `text` (a key, a URL, a webhook id). */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join('***');
  }
  return result;
}

// What must never show in logs: API keys (in a header or, wrongly, in the query string) and webhook ids.

export const WEBHOOK_PATH_PREFIX = '/v1/webhook/';

/** Query parameters that look like a credential: refused on key endpoints, redacted in the log. */
export const KEY_PARAM_PATTERN = /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|bearer|secret)$/i;

/** The path and query as received, with the webhook id, key-like parameters and any known secret replaced. */
export function redactUrl(rawUrl: string, secrets: ReadonlySet<string>): string {
  const queryAt = rawUrl.indexOf('?');
  let path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  if (path.startsWith(WEBHOOK_PATH_PREFIX)) path = `${WEBHOOK_PATH_PREFIX}***`;
  let out = path;
  if (queryAt >= 0) {
    const parts = rawUrl
      .slice(queryAt + 1)
      .split('&')
      .map((part) => {
        const equals = part.indexOf('=');
        const name = safeDecode(equals < 0 ? part : part.slice(0, equals));
        const value = equals < 0 ? '' : safeDecode(part.slice(equals + 1));
        if (secrets.has(name)) return '***';
        return KEY_PARAM_PATTERN.test(name) || secrets.has(value) ? `${part.slice(0, equals < 0 ? part.length : equals)}=***` : part;
      });
    out += `?${parts.join('&')}`;
  }
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('***');
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

import type { IncomingMessage } from 'node:http';
import type { OrgRec } from '../store/model.js';
import { KEY_PARAM_PATTERN } from './secrets.js';
import type { EmulatorState } from '../store/state.js';

export type AuthResult =
  { ok: true; org: OrgRec } | { ok: false; message: string; /** what the bad-key rate limit counts per IP */ presented: string };

/** Bearer header only. A key in the query string is refused even when the key is right. */
export function authenticate(req: IncomingMessage, params: URLSearchParams, state: EmulatorState): AuthResult {
  for (const [name, value] of params) {
    // `?KEY` (the key as a parameter name) is a key in the query string too.
    const keyAsName = state.orgByKey(name) !== undefined;
    if (keyAsName || KEY_PARAM_PATTERN.test(name) || state.orgByKey(value)) {
      return {
        ok: false,
        message: 'API key in the query string is not accepted: send it in the header "Authorization: Bearer <API_KEY>"',
        presented: keyAsName ? name : value,
      };
    }
  }
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') {
    return { ok: false, message: 'API key missing: send the header "Authorization: Bearer <API_KEY>"', presented: '' };
  }
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!match) {
    return { ok: false, message: 'Authorization header must be "Bearer <API_KEY>"', presented: header };
  }
  const org = state.orgByKey(match[1]!);
  if (!org) return { ok: false, message: 'API key is not valid', presented: match[1]! };
  return { ok: true, org };
}

import { WEBHOOK_MAX_OBJECTS } from '../../service/index.js';
import { badRequest } from '../http/errors.js';

export interface WebhookObjects {
  /** Every object in the body, empty ones included. */
  total: number;
  /** The objects that become rows. */
  rows: Array<Record<string, unknown>>;
}

/**
 * Not a rule of the service's spec: rows are served, searched and saved as JSON text, which JavaScript cannot
 * write past a few thousand levels, so a deeper body would make every later read of its table fail. The emulator
 * refuses it up front, as any real JSON store refuses some depth.
 */
export const WEBHOOK_MAX_NESTING = 1000;

/** The three body forms: one object, an array of objects, or `{data: [...]}`. Empty objects are skipped. */
export function parseWebhookBody(body: Buffer): WebhookObjects {
  if (body.length === 0) throw badRequest('body is empty: send a JSON object, an array of objects, or {"data": [...]}');
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
  if (nesting(text) > WEBHOOK_MAX_NESTING) throw badRequest(`body nests objects and arrays more than ${WEBHOOK_MAX_NESTING} levels deep`);
  const list = Array.isArray(parsed)
    ? parsed
    : isObject(parsed) && Array.isArray(parsed.data)
      ? parsed.data
      : isObject(parsed)
        ? [parsed]
        : undefined;
  if (!list) throw badRequest('body must be a JSON object, an array of objects, or {"data": [...]}');
  if (list.length > WEBHOOK_MAX_OBJECTS) {
    throw badRequest(`too many objects (${list.length}): a maximum of ${WEBHOOK_MAX_OBJECTS} per request`);
  }
  const bad = list.findIndex((item) => !isObject(item));
  if (bad >= 0) throw badRequest(`entry ${bad} is not an object: each entry becomes one row and must be a JSON object`);
  const rows = (list as Array<Record<string, unknown>>).filter((item) => Object.keys(item).length > 0);
  if (rows.length === 0) throw badRequest('nothing to add: every object in the body is empty');
  return { total: list.length, rows };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The deepest nesting of `[` and `{` in valid JSON text, strings skipped; a loop, so any depth is safe to measure. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if (char === '}' || char === ']') depth -= 1;
  }
  return deepest;
}

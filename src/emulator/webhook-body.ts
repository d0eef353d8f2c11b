import { WEBHOOK_MAX_OBJECTS } from '../spec/index.js';
import { badRequest } from './errors.js';

export interface WebhookObjects {
  /** Every object in the body, empty ones included. */
  total: number;
  /** The objects that become rows. */
  rows: Array<Record<string, unknown>>;
}

/** The three body forms: one object, an array of objects, or `{data: [...]}`. Empty objects are skipped. */
export function parseWebhookBody(body: Buffer): WebhookObjects {
  if (body.length === 0) throw badRequest('body is empty: send a JSON object, an array of objects, or {"data": [...]}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('body is not valid JSON');
  }
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

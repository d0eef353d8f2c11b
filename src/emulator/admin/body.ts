import type { IncomingMessage } from 'node:http';
import { badRequest, readBody } from '../http/http-io.js';

/** Admin bodies can carry many rows; beyond this they are refused. */
export const ADMIN_BODY_MAX_BYTES = 32_000_000;

/** The JSON object of an admin request's body; anything else is a 400. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const read = await readBody(req, ADMIN_BODY_MAX_BYTES);
  if ('tooLarge' in read) throw badRequest(`body is over ${ADMIN_BODY_MAX_BYTES} bytes`);
  if (read.body.length === 0) throw badRequest('body is required: a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(read.body.toString('utf8'));
  } catch {
    throw badRequest('body is not valid JSON');
  }
  return asObject(body, 'body');
}

/** A plain JSON object, else a 400 naming where it was expected. */
export function asObject(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Only these members, else a 400 naming the others. */
export function allowOnly(record: Record<string, unknown>, where: string, allowed: readonly string[]): void {
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw badRequest(
      `${where} has unknown member${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: ${allowed.join(', ')}`,
    );
  }
}

/** A non-empty string, else a 400. */
export function nonEmptyString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${where} must be a non-empty string`);
  return value;
}

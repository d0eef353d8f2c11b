import { STATUS_CODES } from 'node:http';
import type { ApiErrorBody } from '../../service/index.js';

/** A refusal with the status and message the service would send; handlers throw it, the server renders it. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export function badRequest(message: string): ApiProblem {
  return new ApiProblem(400, message);
}

/** Key endpoints: `error` is always "API Error". */
export function keyErrorBody(status: number, message: string): ApiErrorBody {
  return { statusCode: status, error: 'API Error', message };
}

/** Webhook endpoints: `error` names the problem ("Bad Request", "Not Found", "Payload Too Large", …). */
export function webhookErrorBody(status: number, message: string): ApiErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message };
}

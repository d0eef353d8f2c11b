// A request's body read within a limit, JSON answers sent, and refusals (ApiProblem) in the service's two error shapes.

import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../../service/index.js';

export type BodyResult = { body: Buffer } | { tooLarge: true };

/**
 * Reads a request body up to `maxBytes`. Past that (declared or streamed) it stops keeping the data and keeps
 * draining it, so the client can still read the refusal; nothing is ever buffered beyond the limit.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ tooLarge: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let answered = false;
    req.on('data', (chunk: Buffer) => {
      if (answered) return;
      total += chunk.length;
      if (total > maxBytes) {
        answered = true;
        chunks.length = 0;
        resolve({ tooLarge: true });
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (!answered) {
        answered = true;
        resolve({ body: Buffer.concat(chunks, total) });
      }
    });
    const fail = (error: Error) => {
      if (!answered) {
        answered = true;
        reject(error);
      }
    };
    req.on('error', fail);
    req.on('close', () => fail(new Error('the client went away before the body was complete')));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** `application/json`, with or without parameters such as charset. */
export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

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

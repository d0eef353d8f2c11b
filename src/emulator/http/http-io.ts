// A request's body read within a limit, JSON answers sent, and refusals (ApiProblem) in the service's two error shapes.

import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../../service/index.js';

/** A body, or the word that it was over the limit, and whether it was read to its end (the connection can go on). */
export type BodyResult = { body: Buffer } | { tooLarge: true; drained: boolean };

/** How far past the limit a body is still read (and dropped) so that its sender can read the refusal. */
const DRAIN_FACTOR = 16;

/**
 * Reads a request body up to `maxBytes`. Past that (declared or streamed) it stops keeping the data and
 * reads on to the body's end before it resolves, up to `drainBytes`, so the refusal is answered to a
 * sender that has finished sending (a server that answers and closes while a body is still coming makes
 * the sender see a reset, not the refusal). Past `drainBytes` it resolves at once, `drained: false`:
 * the refusal then closes the connection. Nothing is ever buffered beyond the limit.
 */
export function readBody(req: IncomingMessage, maxBytes: number, drainBytes = DRAIN_FACTOR * maxBytes): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > drainBytes) {
    req.resume();
    return Promise.resolve({ tooLarge: true, drained: false });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let tooLarge = false;
    let answered = false;
    const answer = (result: BodyResult) => {
      if (answered) return;
      answered = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (answered) return;
      total += chunk.length;
      if (total > drainBytes) answer({ tooLarge: true, drained: false });
      else if (total > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.on('end', () => answer(tooLarge ? { tooLarge: true, drained: true } : { body: Buffer.concat(chunks, total) }));
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

// The one transport: one request over a keep-alive pool for a single origin (proxy.ts:
// direct or through a proxy), with the timeouts and the limits of an answer. The service's client, the
// webhook's and the notifications all send through it. Every request names that origin and no redirect
// is followed, so the Authorization header stays with the base URL.

import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { originPool } from './proxy.js';

/** Far above any page the service's limits allow (100 rows of cells cut at 200 characters), far below what hurts. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** A whole response must arrive within this many --timeout periods. */
const DEADLINE_TIMEOUTS = 4;

export interface TransportOptions {
  origin: string;
  /** Connect timeout, time to the response headers, and longest silence inside a body. */
  timeoutMs: number;
  /** Aborting it destroys the pool: the requests in flight fail at once. */
  signal?: AbortSignal;
  /** The proxy to reach the origin through (proxyFor), if any. */
  proxy?: URL;
  /** Connections of the pool (8 unless given). */
  connections?: number;
  pipelining?: number;
  /**
   * Answers whose status alone decides (a webhook's, a notification's): only the first `maxBytes` of
   * the body are kept, and a body cut short or too slow is read as empty instead of failing the request.
   */
  informativeBody?: { maxBytes: number };
}

export interface SendRequest {
  method: 'GET' | 'POST' | 'HEAD';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export class Transport {
  private readonly options: TransportOptions;
  private pool?: Promise<Dispatcher>;

  constructor(options: TransportOptions) {
    this.options = options;
  }

  /** The response, or the transport failure thrown. */
  async send(request: SendRequest): Promise<RawResponse> {
    const pool = await (this.pool ??= this.createPool());
    const response = await pool.request({
      origin: this.options.origin,
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body,
    });
    const deadlineMs = this.options.timeoutMs * DEADLINE_TIMEOUTS;
    const { informativeBody } = this.options;
    if (informativeBody) {
      const limits = { maxBytes: informativeBody.maxBytes, deadlineMs, keepStart: true };
      const text = await readBodyText(response.body, limits).catch(() => '');
      return { status: response.statusCode, headers: response.headers, text };
    }
    const declared = Number(response.headers['content-length']);
    const text = await readBodyText(
      response.body,
      { maxBytes: MAX_RESPONSE_BYTES, deadlineMs },
      Number.isFinite(declared) ? declared : undefined,
    );
    return { status: response.statusCode, headers: response.headers, text };
  }

  /**
   * Resolves once requests handed to the pool just before have been written to their connections.
   * undici writes on a reused keep-alive connection only after the event loop has turned: once
   * before a connection that just finished a response is reused, then once more to check the idle
   * connection for a close from the server. Work done meanwhile would hold those requests back.
   */
  queuedRequestsWritten(): Promise<void> {
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  }

  async close(): Promise<void> {
    const pool = await this.pool?.catch(() => undefined);
    // an aborted run destroyed it already
    await pool?.close().catch(() => undefined);
  }

  // undici loads on the first request, so commands that send none (help, config, emulator) start faster.
  private async createPool(): Promise<Dispatcher> {
    const { origin, timeoutMs, signal, proxy, connections = 8, pipelining } = this.options;
    const pool = await originPool(origin, { connections, timeoutMs, ...(pipelining !== undefined ? { pipelining } : {}) }, proxy);
    if (signal?.aborted) void pool.destroy(null).catch(() => undefined);
    signal?.throwIfAborted();
    // One abort listener for the pool: per-request ones, once removed, stay linked to the next and keep its response alive.
    signal?.addEventListener('abort', () => void pool.destroy(null).catch(() => undefined), { once: true });
    return pool;
  }
}

export interface BodyLimits {
  /** Past this many bytes the body is dropped: an error, or (with `keepStart`) the start is kept. */
  maxBytes: number;
  /** The whole body must arrive within this time (a server that drips a byte at a time never stalls long enough for the idle timeout). */
  deadlineMs: number;
  /** Return the first `maxBytes` instead of failing (a webhook's answer is only informative). */
  keepStart?: boolean;
}

/** Transport failures of our own making, with codes as stable as undici's. */
export const RESPONSE_TOO_LARGE = 'TDS_RESPONSE_TOO_LARGE';
export const RESPONSE_DEADLINE = 'TDS_RESPONSE_DEADLINE';

type Body = AsyncIterable<Buffer> & { destroy(error?: Error): unknown };

/** A response body as text, within the limits; the connection is dropped when they are passed. */
export async function readBodyText(body: Body, limits: BodyLimits, declaredBytes?: number): Promise<string> {
  if (!limits.keepStart && declaredBytes !== undefined && declaredBytes > limits.maxBytes) {
    body.destroy();
    throw tooLarge(limits.maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(deadline(limits.deadlineMs)), limits.deadlineMs);
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limits.maxBytes) {
        body.destroy();
        if (!limits.keepStart) throw tooLarge(limits.maxBytes);
        chunks.push(chunk.subarray(0, chunk.length - (size - limits.maxBytes)));
        break;
      }
      chunks.push(chunk);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(maxBytes: number): Error {
  return Object.assign(new Error(`the response is larger than ${maxBytes} bytes`), { code: RESPONSE_TOO_LARGE });
}

function deadline(ms: number): Error {
  return Object.assign(new Error(`the response did not arrive in full within ${ms} ms`), { code: RESPONSE_DEADLINE });
}

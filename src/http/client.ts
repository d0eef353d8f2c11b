import type { z } from 'zod';
import { redactSecrets } from '../core/index.js';
import type { QueryBody, RowsPage, SchemaResponse, TablesResponse, WorkspacesResponse } from '../service/index.js';
import { isLoopbackHost, parseBaseUrl, type BaseUrl, checkKeyText } from './connection-settings.js';
import { callFailure, type Attempt, describeNetworkCode, unexpectedResponse } from './errors.js';
import { proxyFor, shownProxy, type ProxySettings } from './proxy.js';
import type { AttemptOutcome, RetryPolicy, RetryReason } from './retry-policy.js';
import type { AttemptReport } from './retry.js';
import { createLimiters, serviceTimings, type Bucket, type ServiceLimiters, type ServiceTimings } from './rate-limiter.js';
import { isSuccess, sendWithRetries } from './stack.js';
import { Transport, type RawResponse, type SendRequest } from './transport.js';

export type { WorkspacesResponse, TablesResponse, SchemaResponse, RowsPage, QueryBody };

export interface ApiClientOptions {
  /** Ends in /v1. */
  baseUrl: string;
  apiKey: string;
  /** Retries of a failed read (500/502/503/504, network errors, 429) before GAVE_UP. */
  maxRetries?: number;
  /** Connect and stalled-body timeout. */
  timeoutMs?: number;
  /** The windows to space requests to and the scale of retry waits (serviceTimings(settings.rateScale)); the service's own by default. */
  timings?: ServiceTimings;
  /** --verbose lines (already redacted). */
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY (proxy.ts says the rule). */
  proxy?: ProxySettings;
}

export const DEFAULT_MAX_RETRIES = 5;
export const DEFAULT_TIMEOUT_MS = 30_000;

interface Call<T> {
  /** For messages: `list workspaces`, `read rows of table X`. */
  what: string;
  bucket: Bucket;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The response shape, picked from schemas.ts (loaded with zod on the first response). */
  schema: (schemas: Schemas) => z.ZodType<T>;
  /** A faster check that accepts only what `schema` accepts (what it refuses goes to zod). */
  accepts?: (json: unknown) => json is T;
  /** Gets the body of the 2xx answer before it is parsed, and its Date header (the service's clock). */
  onBody?: OnBody;
  /** Every attempt (retries too) waits until the bucket's window holds fewer requests than this (RateLimiter.acquireSlot). */
  ceiling?: number;
}

type Schemas = typeof import('./schemas.js');

/** Gets a 2xx answer's raw body before it is parsed, and its Date header when it has one. */
export type OnBody = (body: string, date?: string) => void;

/**
 * The service's key endpoints. Every attempt goes through the limiters (one per rate limit);
 * 429 pauses the whole bucket for `retry-after`; 5xx and broken connections are retried with
 * backoff; every other failure becomes a TdsError from errors.ts.
 */
export class ApiClient {
  /** `rowRequests`: the attempts of the row-read limit's bucket (what --follow's share counts). */
  readonly stats = { requests: 0, rowRequests: 0, retries: 0, rateLimited: 0, waitedMs: 0 };
  /** The windows this client spaces requests to: what an ETA of its reads counts on. */
  readonly timings: ServiceTimings;
  private readonly base: BaseUrl;
  /** The proxy requests go through (as shownProxy shows it), if any: what a network error names beside the host. */
  private readonly shownProxy?: string;
  private readonly apiKey: string;
  private readonly policy: RetryPolicy;
  private readonly log?: (line: string) => void;
  private readonly signal?: AbortSignal;
  private readonly transport: Transport;
  private readonly limiters: ServiceLimiters;
  /** How long the last answers took (ms, from the request going out, the limiter's wait not counted); newest last. */
  private readonly answerMs: number[] = [];
  /** The Date of the service's latest answer, and when (this machine's clock) it came. */
  private serviceDate?: { serviceMs: number; localMs: number };

  constructor(options: ApiClientOptions) {
    this.base = parseBaseUrl(options.baseUrl);
    checkKeyText(options.apiKey);
    this.apiKey = options.apiKey;
    this.timings = options.timings ?? serviceTimings();
    this.policy = {
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      idempotent: true,
      rateScale: this.timings.retryScale,
      loopback: isLoopbackHost(new URL(this.base.origin).hostname),
    };
    this.log = options.log;
    this.signal = options.signal;
    const proxy = options.proxy ? proxyFor(new URL(this.base.origin), options.proxy) : undefined;
    if (proxy) this.shownProxy = shownProxy(proxy);
    if (proxy) this.log?.(`connecting to ${this.base.host} through the proxy ${shownProxy(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
    this.transport = new Transport({
      origin: this.base.origin,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: options.signal,
      ...(proxy ? { proxy } : {}),
    });
    this.limiters = createLimiters(this.timings.windows);
  }

  /** The service's normalized base URL (it holds no secret). */
  get baseUrl(): string {
    return this.base.href;
  }

  workspaces(): Promise<WorkspacesResponse> {
    return this.call({
      what: 'list workspaces',
      bucket: 'metadata',
      method: 'GET',
      path: '/workspaces',
      schema: (schemas) => schemas.workspacesResponseSchema,
    });
  }

  tables(params: { workspaceId?: string } = {}): Promise<TablesResponse> {
    return this.call({
      what: params.workspaceId === undefined ? 'list tables' : `list tables of workspace ${params.workspaceId}`,
      bucket: 'metadata',
      method: 'GET',
      path: '/tables',
      query: { workspaceId: params.workspaceId },
      schema: (schemas) => schemas.tablesResponseSchema,
    });
  }

  schema(tableId: string): Promise<SchemaResponse> {
    return this.call({
      what: `read the schema of table ${tableId}`,
      bucket: 'metadata',
      method: 'GET',
      path: `/tables/${encodeURIComponent(tableId)}/schema`,
      schema: (schemas) => schemas.schemaResponseSchema,
    });
  }

  /**
   * `onBody` gets the page's raw body before it is parsed (pagination reads the next cursor from it), and
   * the response's Date header (the service's clock: the mirror's watermark is in its time). `ceiling`: each
   * attempt waits until the row-read window holds fewer of this client's requests (--follow's share).
   */
  rowsPage(tableId: string, params: { limit?: number; cursor?: string; q?: string }, onBody?: OnBody, ceiling?: number): Promise<RowsPage> {
    return this.call({
      what: `read rows of table ${tableId}`,
      bucket: 'rows',
      method: 'GET',
      path: `/tables/${encodeURIComponent(tableId)}/rows`,
      query: { limit: params.limit, cursor: params.cursor, q: params.q },
      schema: (schemas) => schemas.rowsPageSchema,
      accepts: isRowsPage,
      onBody,
      ...(ceiling !== undefined ? { ceiling } : {}),
    });
  }

  queryPage(tableId: string, body: QueryBody, onBody?: (body: string) => void): Promise<RowsPage> {
    return this.call({
      what: `query rows of table ${tableId}`,
      bucket: 'rows',
      method: 'POST',
      path: `/tables/${encodeURIComponent(tableId)}/rows/query`,
      body,
      schema: (schemas) => schemas.rowsPageSchema,
      accepts: isRowsPage,
      onBody,
    });
  }

  /** Milliseconds until the row-read limit (or `ceiling`, as rowsPage takes it) lets the next page request go (0: now). */
  rowReadWaitMs(ceiling?: number): number {
    return this.limiters.rows.delayUntilFree(ceiling);
  }

  /**
   * The round trip to the service (ms): the shortest of the last 20 answers (the way there and back
   * without a queue); undefined before any answer.
   */
  roundTripMs(): number | undefined {
    return this.answerMs.length === 0 ? undefined : Math.min(...this.answerMs);
  }

  /** Now on the service's clock, from the Date of its latest answer (to the second); undefined before any. */
  serviceNow(): number | undefined {
    return this.serviceDate && this.serviceDate.serviceMs + (Date.now() - this.serviceDate.localMs);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async call<T>(call: Call<T>): Promise<T> {
    const request = this.buildRequest(call);
    const bucket = this.limiters[call.bucket];
    const { ceiling } = call;
    const limiter =
      ceiling === undefined
        ? bucket
        : { acquireSlot: (signal?: AbortSignal) => bucket.acquireSlot(signal, ceiling), pause: (ms: number) => bucket.pause(ms) };
    const { result, attempts, decision } = await sendWithRetries({
      transport: this.transport,
      request,
      limiter,
      policy: this.policy,
      ...(this.signal ? { signal: this.signal } : {}),
      onAttempt: (report) => {
        this.stats.requests += 1;
        if (call.bucket === 'rows') this.stats.rowRequests += 1;
        this.record(request, report);
      },
    });
    if (decision) {
      const proxy = this.shownProxy ? { proxy: this.shownProxy } : {};
      throw callFailure({ what: call.what, last: result, attempts, decision, host: this.base.host, ...proxy, apiKey: this.apiKey });
    }
    const response = result.response!;
    const dated = typeof response.headers.date === 'string' ? Date.parse(response.headers.date) : NaN;
    if (!Number.isNaN(dated)) this.serviceDate = { serviceMs: dated, localMs: Date.now() };
    if (call.onBody) {
      const date = response.headers.date;
      call.onBody(response.text, typeof date === 'string' ? date : undefined);
      // A request onBody started goes out before this body is parsed, so the service works on it meanwhile.
      await this.transport.queuedRequestsWritten();
    }
    return this.parse(call, response);
  }

  /** Counts and logs one attempt, with the retry it leads to. */
  private record(request: SendRequest, report: AttemptReport<Attempt>): void {
    const { result, decision, limiterWaitMs } = report;
    this.stats.waitedMs += limiterWaitMs;
    if (isSuccess(result)) {
      this.answerMs.push(result.ms);
      if (this.answerMs.length > ROUND_TRIP_SAMPLES) this.answerMs.shift();
    }
    if (result.outcome.kind === 'status' && result.outcome.status === 429) this.stats.rateLimited += 1;
    let retry: RequestLogLine['retry'];
    if (decision?.retry) {
      this.stats.retries += 1;
      if (decision.reason !== 'rate-limited') this.stats.waitedMs += decision.waitMs;
      retry = { number: report.number, max: this.policy.maxRetries, waitMs: decision.waitMs, reason: decision.reason };
    }
    if (!this.log) return;
    const line = formatRequestLine({
      method: request.method,
      path: request.path,
      outcome: result.outcome,
      ms: result.ms,
      limiterWaitMs,
      retry,
    });
    this.log(redactSecrets(line, [this.apiKey]));
  }

  private buildRequest(call: Call<unknown>): SendRequest {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': 'tds',
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    return {
      method: call.method,
      path: this.base.basePath + call.path + queryString(call.query),
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    };
  }

  private async parse<T>(call: Call<T>, response: RawResponse): Promise<T> {
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      throw unexpectedResponse(call.what, 'the body is not JSON', response.status);
    }
    if (call.accepts?.(json)) return json;
    const schemas: Schemas = await import('./schemas.js');
    const result = call.schema(schemas).safeParse(json);
    if (!result.success) {
      const detail = `${call.method} ${call.path}: ${schemas.describeIssues(result.error)}`;
      throw unexpectedResponse(call.what, detail, response.status);
    }
    return result.data;
  }
}

function queryString(query: Record<string, string | number | undefined> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

const ROUND_TRIP_SAMPLES = 20;

export interface RequestLogLine {
  method: string;
  /** Path and query as sent. */
  path: string;
  outcome: AttemptOutcome;
  ms: number;
  /** Time spent waiting for a limiter slot before this attempt. */
  limiterWaitMs: number;
  retry?: { number: number; max: number; waitMs: number; reason: RetryReason };
}

/** One --verbose line: `GET /v1/tables?workspaceId=ws_1 200 12ms`, plus waits and the retry plan. */
export function formatRequestLine(line: RequestLogLine): string {
  const result =
    line.outcome.kind === 'status'
      ? String(line.outcome.status)
      : `${describeNetworkCode(line.outcome.code)}${line.outcome.code ? ` (${line.outcome.code})` : ''}`;
  let text = `${line.method} ${shortenCursor(line.path)} ${result} ${Math.round(line.ms)}ms`;
  if (line.limiterWaitMs > 0) text += ` (limiter ${Math.round(line.limiterWaitMs)}ms)`;
  if (line.retry) {
    const { number, max, waitMs, reason } = line.retry;
    const why = reason === 'rate-limited' ? 'rate limited' : reason === 'server-error' ? 'server error' : 'network';
    text += `; retry ${number}/${max} in ${Math.round(waitMs)}ms (${why})`;
  }
  return text;
}

/** Cursors run to 500 characters; a log line shows the first few. */
function shortenCursor(path: string): string {
  return path.replace(/([?&]cursor=)([^&]{12})[^&]+/, '$1$2…');
}

// A page of rows is checked once per request on the export's critical path, where zod costs about a
// second per million rows. This hand-written check accepts only what rowsPageSchema accepts; anything it
// does not accept goes to zod, which then either accepts it or describes the problem.

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOptional = (value: unknown, type: 'string' | 'boolean'): boolean => value === undefined || typeof value === type;

function isCell(cell: unknown): boolean {
  return (
    isObject(cell) &&
    (cell.status === undefined || cell.status === null || typeof cell.status === 'string') &&
    isOptional(cell.isTruncated, 'boolean') &&
    isOptional(cell.valuePreview, 'string')
  );
}

function isRow(row: unknown): boolean {
  if (!isObject(row)) return false;
  if (typeof row.id !== 'string' || typeof row.tableId !== 'string') return false;
  if (typeof row.createdAt !== 'string' || typeof row.updatedAt !== 'string') return false;
  if (row.createdByUserId !== null && typeof row.createdByUserId !== 'string') return false;
  const { cells } = row;
  if (!isObject(cells)) return false;
  for (const key in cells) if (!isCell(cells[key])) return false;
  return true;
}

export function isRowsPage(value: unknown): value is RowsPage {
  if (!isObject(value)) return false;
  const { rows, limit, nextCursor, hasNextPage } = value;
  if (!Number.isSafeInteger(limit) || typeof hasNextPage !== 'boolean') return false;
  if (nextCursor !== null && typeof nextCursor !== 'string') return false;
  return Array.isArray(rows) && rows.every(isRow);
}

import type { z } from 'zod';
import { redactSecrets } from '../core/redact.js';
import { type QueryBody, type RowsPage, type SchemaResponse, type TablesResponse, type WorkspacesResponse } from '../service/index.js';
import { parseBaseUrl, type BaseUrl } from './base-url.js';
import { callFailure, type Attempt } from './call-failure.js';
import { errorCodeOf, unexpectedResponse } from './errors.js';
import { checkKeyText } from './key-text.js';
import { createPacing, type Bucket, type Pacing } from './pacing.js';
import { formatRequestLine, type RequestLogLine } from './request-log.js';
import { proxyFor, shownProxy, type ProxySettings } from './proxy.js';
import { parseRetryAfter } from './retry-after.js';
import { withRetries, type AttemptReport } from './retry.js';
import type { AttemptOutcome, RetryPolicy } from './retry-policy.js';
import { servicePace, type ServicePace } from './service-pace.js';
import { Transport, type RawResponse, type SendRequest } from './transport.js';
import { isRowsPage } from './rows-page-check.js';

export type { WorkspacesResponse, TablesResponse, SchemaResponse, RowsPage, QueryBody };

export interface ApiClientOptions {
  /** Ends in /v1. */
  baseUrl: string;
  apiKey: string;
  /** Retries of a failed read (500/502/503/504, network errors, 429) before GAVE_UP. */
  maxRetries?: number;
  /** Connect and stalled-body timeout. */
  timeoutMs?: number;
  /** The windows to pace requests to and the scale of retry waits (servicePace(settings.rateScale)); the service's own by default. */
  pace?: ServicePace;
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
}

type Schemas = typeof import('./schemas.js');

/** Gets a 2xx answer's raw body before it is parsed, and its Date header when it has one. */
export type OnBody = (body: string, date?: string) => void;

/**
 * The service's key endpoints. Every attempt goes through pacing (one limiter per rate limit);
 * 429 pauses the whole bucket for `retry-after`; 5xx and broken connections are retried with
 * backoff; every other failure becomes a TdsError from errors.ts.
 */
export class ApiClient {
  readonly stats = { requests: 0, retries: 0, rateLimited: 0, waitedMs: 0 };
  /** The windows this client paces requests to: what an ETA of its reads counts on. */
  readonly pace: ServicePace;
  private readonly base: BaseUrl;
  /** `host:port`, and the proxy when there is one: what a network error names. */
  private readonly target: string;
  private readonly apiKey: string;
  private readonly policy: RetryPolicy;
  private readonly log?: (line: string) => void;
  private readonly signal?: AbortSignal;
  private readonly transport: Transport;
  private readonly pacing: Pacing;

  constructor(options: ApiClientOptions) {
    this.base = parseBaseUrl(options.baseUrl);
    checkKeyText(options.apiKey);
    this.apiKey = options.apiKey;
    this.pace = options.pace ?? servicePace();
    this.policy = { maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES, idempotent: true, rateScale: this.pace.retryScale };
    this.log = options.log;
    this.signal = options.signal;
    const proxy = options.proxy ? proxyFor(new URL(this.base.origin), options.proxy) : undefined;
    this.target = proxy ? `${this.base.host} through the proxy ${shownProxy(proxy)}` : this.base.host;
    if (proxy) this.log?.(`connecting to ${this.base.host} through the proxy ${shownProxy(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
    this.transport = new Transport({
      origin: this.base.origin,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: options.signal,
      ...(proxy ? { proxy } : {}),
    });
    this.pacing = createPacing(this.pace.windows);
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
   * the response's Date header (the service's clock: the mirror's watermark is in its time).
   */
  rowsPage(tableId: string, params: { limit?: number; cursor?: string; q?: string }, onBody?: OnBody): Promise<RowsPage> {
    return this.call({
      what: `read rows of table ${tableId}`,
      bucket: 'rows',
      method: 'GET',
      path: `/tables/${encodeURIComponent(tableId)}/rows`,
      query: { limit: params.limit, cursor: params.cursor, q: params.q },
      schema: (schemas) => schemas.rowsPageSchema,
      accepts: isRowsPage,
      onBody,
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

  close(): Promise<void> {
    return this.transport.close();
  }

  private async call<T>(call: Call<T>): Promise<T> {
    const request = this.buildRequest(call);
    const limiter = this.pacing[call.bucket];
    const { result, attempts, decision } = await withRetries<Attempt>({
      limiter,
      policy: this.policy,
      signal: this.signal,
      attempt: () => this.attempt(request),
      outcomeOf: (attempt) => (isSuccess(attempt.response) ? undefined : attempt.outcome),
      onAttempt: (report) => this.record(request, report),
    });
    if (decision) throw callFailure({ what: call.what, last: result, attempts, decision, host: this.target, apiKey: this.apiKey });
    const response = result.response!;
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
    const { result, decision, pacedMs } = report;
    this.stats.waitedMs += pacedMs;
    if (result.outcome.kind === 'status' && result.outcome.status === 429) this.stats.rateLimited += 1;
    let retry: RequestLogLine['retry'];
    if (decision?.retry) {
      this.stats.retries += 1;
      if (decision.reason !== 'rate-limited') this.stats.waitedMs += decision.waitMs;
      retry = { number: report.number, max: this.policy.maxRetries, waitMs: decision.waitMs, reason: decision.reason };
    }
    if (!this.log) return;
    const line = formatRequestLine({ method: request.method, path: request.path, outcome: result.outcome, ms: result.ms, pacedMs, retry });
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

  /** One try: a response of any status, or the transport failure. An abort is thrown as its reason. */
  private async attempt(request: SendRequest): Promise<Attempt> {
    this.stats.requests += 1;
    const started = performance.now();
    try {
      const response = await this.transport.send(request);
      const retryAfterMs = response.status === 429 ? parseRetryAfter(response.headers['retry-after']) : undefined;
      const outcome: AttemptOutcome = { kind: 'status', status: response.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
      return { outcome, response, ms: performance.now() - started };
    } catch (error) {
      if (this.signal?.aborted) throw this.signal.reason;
      return { outcome: { kind: 'network', code: errorCodeOf(error) }, failure: error, ms: performance.now() - started };
    }
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

function isSuccess(response: RawResponse | undefined): boolean {
  return response !== undefined && response.status >= 200 && response.status < 300;
}

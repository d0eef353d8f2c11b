import { createPrng, type Prng } from '../seed/prng.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { keyErrorBody, webhookErrorBody, sendJson } from '../http/http-io.js';

/*
 * Fault injection for reliability tests. A spec is a comma list of items:
 *   KIND:P      with probability P (0..1) on each request of the surface (one seeded draw per request)
 *   KIND@N      exactly the N-th request of the surface (1-based, every request counted, HEAD included)
 *   KIND@N-M    the N-th to M-th requests
 * Kinds: 500 502 503 (502 comes as an HTML page, as from a gateway), 429 (retry-after: 1), 429bare (no
 * retry-after), reset (socket destroyed, no response), stall (no response; the socket is held until the
 * client gives up or the emulator closes).
 * On the webhook, 500 502 503 reset stall come after the objects were accepted (rows may have been added);
 * 500pre 502pre 503pre resetpre are the same failures before anything is stored. On reads every fault comes
 * first (the -pre kinds are the same as their plain kinds there).
 */

export const FAULT_KINDS = ['500', '502', '503', '429', '429bare', 'reset', 'stall', '500pre', '502pre', '503pre', 'resetpre'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What the client sees of a fault, whenever it comes. */
export type FaultResponse = '500' | '502' | '503' | '429' | '429bare' | 'reset' | 'stall';

export function faultResponse(kind: FaultKind): FaultResponse {
  return kind.endsWith('pre') ? (kind.slice(0, -'pre'.length) as FaultResponse) : (kind as FaultResponse);
}

/** Webhook faults that come only after the request's objects were accepted. */
export function isAfterAccept(kind: FaultKind): boolean {
  return kind === '500' || kind === '502' || kind === '503' || kind === 'reset' || kind === 'stall';
}

export interface FaultItem {
  kind: FaultKind;
  probability?: number;
  from?: number;
  to?: number;
}

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

const ITEM = /^([a-z0-9]+)(?::(\d*\.?\d+)|@(\d+)(?:-(\d+))?)$/i;

export function parseFaultSpec(spec: string): FaultItem[] {
  const items: FaultItem[] = [];
  for (const raw of spec.split(',').map((part) => part.trim())) {
    if (raw === '') continue;
    const match = ITEM.exec(raw);
    const kind = match?.[1] as FaultKind | undefined;
    if (!match || !kind || !FAULT_KINDS.includes(kind)) {
      throw new FaultSpecError(
        `fault spec item "${raw}" is not valid: write KIND:P, KIND@N or KIND@N-M with KIND one of ${FAULT_KINDS.join(', ')} (e.g. "500:0.1,reset@3")`,
      );
    }
    if (match[2] !== undefined) {
      const probability = Number(match[2]);
      if (probability > 1) throw new FaultSpecError(`fault spec item "${raw}": the probability must be from 0 to 1`);
      items.push({ kind, probability });
    } else {
      const from = Number(match[3]);
      const to = match[4] === undefined ? from : Number(match[4]);
      if (from < 1 || to < from) throw new FaultSpecError(`fault spec item "${raw}": positions are 1-based and N-M needs M >= N`);
      items.push({ kind, from, to });
    }
  }
  const total = items.reduce((sum, item) => sum + (item.probability ?? 0), 0);
  if (total > 1 + 1e-9) throw new FaultSpecError(`fault spec "${spec}": the probabilities add up to ${total}, more than 1`);
  return items;
}

/** Decides, request by request, whether a surface (reads or webhook) gets a fault. */
export class FaultPlan {
  private count = 0;
  private readonly random: Prng;

  constructor(
    private readonly items: readonly FaultItem[],
    seed: number,
  ) {
    this.random = createPrng(seed);
  }

  next(): FaultKind | undefined {
    if (this.items.length === 0) return undefined;
    this.count += 1;
    const draw = this.random();
    const positioned = this.items.find((item) => item.from !== undefined && this.count >= item.from && this.count <= item.to!);
    if (positioned) return positioned.kind;
    let threshold = 0;
    for (const item of this.items) {
      if (item.probability === undefined) continue;
      threshold += item.probability;
      if (draw < threshold) return item.kind;
    }
    return undefined;
  }
}

const BAD_GATEWAY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n';

/** The request a fault answers, and the server's set of stalled sockets (a `stall` joins it). */
export interface FaultedCall {
  req: IncomingMessage;
  res: ServerResponse;
  stalled: Set<Socket>;
}

/** Answers a request with an injected fault, in the error shape of the surface it hit. */
export function sendFault(kind: FaultKind, surface: 'key' | 'webhook', { req, res, stalled }: FaultedCall): void {
  const errorBody = surface === 'key' ? keyErrorBody : webhookErrorBody;
  const response = faultResponse(kind);
  switch (response) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'stall':
      stalled.add(req.socket);
      req.socket.once('close', () => stalled.delete(req.socket));
      return;
    case '502':
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(BAD_GATEWAY_PAGE);
      return;
    case '429':
    case '429bare':
      sendJson(res, 429, errorBody(429, 'Too many requests (injected fault)'), response === '429' ? { 'retry-after': '1' } : {});
      return;
    default:
      sendJson(res, Number(response), errorBody(Number(response), `Service failure (injected fault ${kind})`));
  }
}

// Faults injected as a spec says (fault-spec.ts): each surface's plan, request by request, and the responses.

import { createPrng, type Prng } from '../seed/prng.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { keyErrorBody, webhookErrorBody, sendJson } from '../http/http-io.js';
import { type FaultItem, type FaultKind, faultResponse } from './fault-spec.js';

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

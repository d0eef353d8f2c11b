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

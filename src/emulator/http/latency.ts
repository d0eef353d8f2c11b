import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPrng, type Prng } from '../seed/prng.js';

/** `--latency MS[,JITTER]`: the round trip every request of the service takes, and how much it varies. */
export interface LatencySpec {
  /** The round trip added to every request of the service, in ms. */
  ms: number;
  /** Each round trip is MS ± up to JITTER ms (each way draws its half at random). */
  jitterMs: number;
}

export class LatencySpecError extends Error {}

const MAX_MS = 60_000;

/** `200` or `200,20`: whole milliseconds, the jitter at most the latency. */
export function parseLatency(text: string): LatencySpec {
  const match = /^\s*(\d+)\s*(?:,\s*(\d+)\s*)?$/.exec(text);
  if (!match) throw new LatencySpecError(`"${text}" is not MS or MS,JITTER (whole milliseconds, e.g. 200 or 200,20)`);
  const ms = Number(match[1]);
  const jitterMs = Number(match[2] ?? 0);
  if (ms > MAX_MS) throw new LatencySpecError(`${ms} ms is more than ${MAX_MS} ms`);
  if (jitterMs > ms) throw new LatencySpecError(`the jitter (${jitterMs} ms) cannot be more than the latency (${ms} ms)`);
  return { ms, jitterMs };
}

/**
 * A far-away service on one machine: half of the round trip passes before a request reaches the
 * service (before it is counted against a rate limit and handled), the other half before its answer
 * leaves. Each half is drawn apart (MS/2 ± JITTER/2), so requests sent in order may arrive out of it,
 * as on a real network. Connections and the emulator's own /_emulator routes are not delayed.
 */
export class NetworkDelay {
  private readonly random: Prng;

  constructor(
    private readonly spec: LatencySpec,
    seed: number,
  ) {
    this.random = createPrng(seed ^ 0x1a7e);
  }

  /** The way there: resolves when the request has "arrived". */
  arrive(): Promise<void> {
    return sleep(this.oneWayMs());
  }

  /** The way back: the answer's bytes leave the emulator one way-time after `end()` is called. */
  holdAnswer(res: ServerResponse): void {
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const delayMs = this.oneWayMs();
    res.end = ((...args: unknown[]) => {
      setTimeout(() => end(...args), delayMs);
      return res;
    }) as ServerResponse['end'];
  }

  private oneWayMs(): number {
    const { ms, jitterMs } = this.spec;
    return Math.max(0, ms / 2 + (this.random() - 0.5) * jitterMs);
  }
}

import { allowOnly, readJsonObject } from './body.js';
import type { EmulatorClock } from '../store/clock.js';
import { badRequest } from '../http/http-io.js';
import { ok, type Reply, type RouteCall } from '../http/server-deps.js';

/** An offset beyond ±100 years would take dates out of what ISO 8601 strings of 4-digit years can say. */
const MAX_OFFSET_MS = 100 * 366 * 86_400_000;

/** GET /_emulator/clock -> 200 {now, offsetMs} */
export function readClock({ deps }: RouteCall): Reply {
  return ok(clockBody(deps.clock));
}

/** POST /_emulator/clock {advanceMs} or {offsetMs} -> 200 {now, offsetMs} */
export async function setClock({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['advanceMs', 'offsetMs']);
  const given = Object.keys(body);
  if (given.length !== 1)
    throw badRequest('body must have exactly one of advanceMs (move the clock by N ms) and offsetMs (set the offset)');
  const ms = body[given[0]!];
  if (typeof ms !== 'number' || !Number.isInteger(ms)) throw badRequest(`body.${given[0]} must be a whole number of milliseconds`);
  const offset = given[0] === 'advanceMs' ? deps.clock.offsetMs + ms : ms;
  if (Math.abs(offset) > MAX_OFFSET_MS) throw badRequest(`the clock offset must stay within ±${MAX_OFFSET_MS} ms (100 years)`);
  deps.clock.setOffset(offset);
  return ok(clockBody(deps.clock));
}

function clockBody(clock: EmulatorClock): { now: string; offsetMs: number } {
  return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offsetMs };
}

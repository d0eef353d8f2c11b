// The /_emulator/ routes the simulator (test/sim/) steers the world with, beside the admin routes: a table's
// rows at once (the oracle's snapshot, no page, no limit), a table removed, faults and latency set while the
// emulator runs, and a hold on the service's requests from the N-th on, so a client killed "at request N"
// is killed at the same point of its work on every replay.

import { allowOnly, readJsonObject } from './admin-input.js';
import { adminTable } from './admin-routes.js';
import { badRequest } from '../http/http-io.js';
import type { RequestHold } from '../http/request-hold.js';
import { NetworkDelay } from '../http/latency.js';
import { ok, type Reply, type RouteCall } from '../http/route-table.js';
import { FaultSpecError, parseFaultSpec } from '../faults/fault-spec.js';
import { FaultPlan } from '../faults/faults.js';
import { publicField } from '../read/render-row.js';
import type { IntakeLimitOptions } from '../webhook/limits.js';

/** GET /_emulator/hold -> {arrived, held}; POST {after: N, ms?} holds the N-th request from now on; DELETE releases. */
export async function setHold({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['after', 'ms']);
  if (typeof body.after !== 'number' || !Number.isInteger(body.after) || body.after < 1) {
    throw badRequest('body.after must be a whole number of requests, 1 or more');
  }
  if (body.ms !== undefined && (typeof body.ms !== 'number' || !Number.isInteger(body.ms) || body.ms < 0)) {
    throw badRequest('body.ms must be whole milliseconds, 0 or more');
  }
  holdOf(deps).set(body.after, body.ms);
  return ok(holdOf(deps).state());
}

export const readHold = ({ deps }: RouteCall): Reply => ok(holdOf(deps).state());

export function releaseHold({ deps }: RouteCall): Reply {
  holdOf(deps).open();
  return ok(holdOf(deps).state());
}

function holdOf(deps: RouteCall['deps']): RequestHold {
  if (!deps.hold) throw badRequest('this emulator holds no requests');
  return deps.hold;
}

/**
 * POST /_emulator/faults {reads?, webhook?, latencyMs?, seed?} -> 200 {}: the fault specs (as --read-faults and
 * --webhook-faults; positions count from now) and the round trip of every request of the service from now on.
 */
export async function setFaults({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['reads', 'webhook', 'latencyMs', 'seed']);
  const seed = typeof body.seed === 'number' ? body.seed : 1;
  try {
    if (body.reads !== undefined) deps.readFaults = new FaultPlan(parseFaultSpec(String(body.reads)), seed);
    if (body.webhook !== undefined) deps.webhookFaults = new FaultPlan(parseFaultSpec(String(body.webhook)), seed);
  } catch (error) {
    if (error instanceof FaultSpecError) throw badRequest(error.message);
    throw error;
  }
  if (body.latencyMs !== undefined) {
    const ms = body.latencyMs;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw badRequest('body.latencyMs must be whole milliseconds, 0 or more');
    deps.delay = ms > 0 ? new NetworkDelay({ ms, jitterMs: 0 }, seed) : undefined;
  }
  return ok({});
}

/**
 * POST /_emulator/limits {webhookBudget?, tableCapacity?} -> 200 {webhookBudget, tableCapacity}: the limits of
 * --webhook-budget and --table-capacity from now on (null: none); what each webhook took so far stays counted.
 */
export async function setLimits({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['webhookBudget', 'tableCapacity']);
  const limits: IntakeLimitOptions = {};
  for (const key of ['webhookBudget', 'tableCapacity'] as const) {
    if (!(key in body)) continue;
    const value = body[key];
    if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      throw badRequest(`body.${key} must be a whole number, 0 or more, or null`);
    }
    limits[key] = value ?? undefined;
  }
  deps.limits.set(limits);
  return ok({ webhookBudget: deps.limits.options.webhookBudget ?? null, tableCapacity: deps.limits.options.tableCapacity ?? null });
}

/** GET /_emulator/tables/{tableId}/snapshot -> 200 {fields, rows: [{id, createdAt, updatedAt, values}]}, newest first; values by field ID. */
export function tableSnapshot({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  const rows = [...table.rows.held()].map((row) => ({
    id: row.id,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    values: Object.fromEntries(Object.entries(row.cells).map(([fieldId, cell]) => [fieldId, cell.value ?? null])),
  }));
  return ok({ fields: table.fields.map(publicField), rows: rows.reverse() });
}

/** DELETE /_emulator/tables/{tableId} -> 200 {deleted: 1}: the table, its rows and its webhook are gone. */
export function deleteTable({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  for (const row of [...table.rows.held()]) deps.live.remove(table, row.id);
  deps.state.tables.splice(deps.state.tables.indexOf(table), 1);
  delete deps.webhooks[table.id];
  return ok({ deleted: 1 });
}

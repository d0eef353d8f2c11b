import type { ChildProcess } from 'node:child_process';
import { request } from 'undici';
import { expect } from 'vitest';
import type { RequestLogEntry, RunningEmulator } from '../../src/emulator/index.js';
import type { FieldSpec } from '../helpers/admin-tables.js';
import { type Harness, type HarnessOptions } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { api, PUSH_EMULATOR, webhookPosts, type PushHarness } from '../push/helpers/emulator.js';
import { pushTest } from './push-support.js';

/**
 * The keyed pushes killed mid-intake run slower than the suite (8: the intake's longest window is 3.75 s), so
 * that the next run is up while the killed one's rows are still coming in.
 */
export const SLOW_INTAKE_SCALE = RATE_SCALE / 12.5;

/** Emulator settings of the keyed-push tests: the push tests' (the service's intake on the suite's scale), quick actions. */
export const KEY_EMULATOR: HarnessOptions = { ...PUSH_EMULATOR, actionDelayMs: 20 };

/** A test with its own emulator (KEY_EMULATOR) and temp folder (`pushHarness`); `openHarness` opens more. */
export const keyTest = pushTest.extend<{ pushHarness: PushHarness }>({
  pushHarness: async ({ openHarness }, use) => use(await openHarness(KEY_EMULATOR)),
});

export interface AdminTable {
  id: string;
  url: string;
  fields: Array<{ id: string; label: string; type: string }>;
}

/** A webhook-fed table made through the emulator's admin route. */
export async function webhookTable(harness: Harness, name: string, fields: FieldSpec[]): Promise<AdminTable> {
  const reply = (await harness.admin('POST', '/tables', { workspace: 'Marketing', name, webhook: true, fields })) as {
    table: { id: string };
    fields: AdminTable['fields'];
    webhookUrl: string;
  };
  return { id: reply.table.id, url: reply.webhookUrl, fields: reply.fields };
}

/** Rows added directly (cells by column label), in chunks; `createdAt(i)` dates row i (default: now). */
export async function addRows(
  harness: Harness,
  tableId: string,
  rows: Array<Record<string, unknown>>,
  createdAt?: (i: number) => string,
): Promise<void> {
  const specs = rows.map((cells, i) => ({ cells, ...(createdAt ? { createdAt: createdAt(i) } : {}) }));
  for (let start = 0; start < specs.length; start += 5000) {
    await harness.admin('POST', `/tables/${tableId}/rows`, { rows: specs.slice(start, start + 5000) });
  }
}

/** Every row's value of one column (intake flushed first). */
export async function columnValues(emu: RunningEmulator, tableId: string, label: string): Promise<unknown[]> {
  emu.flushIntake();
  const schema = (await api(emu, `/tables/${tableId}/schema`)) as { fields: Array<{ id: string; label: string }> };
  const id = schema.fields.find((field) => field.label === label)!.id;
  const values: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = (await api(emu, `/tables/${tableId}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as {
      rows: Array<{ cells: Record<string, { value?: unknown }> }>;
      nextCursor: string | null;
    };
    for (const row of page.rows) values.push(row.cells[id]?.value ?? null);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return values;
}

/** Each of `keys` is in the column exactly once (compared as the service's `=` does, ignoring case). */
export function expectEachOnce(values: unknown[], keys: string[]): void {
  const counts = new Map<string, number>();
  for (const value of values) {
    if (value === null) continue;
    const key = String(value).toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const wrong = keys.map((key) => [key, counts.get(key.toLowerCase()) ?? 0] as const).filter(([, count]) => count !== 1);
  expect(wrong, 'keys not in the table exactly once').toEqual([]);
}

/** The query bodies POSTed to rows/query (as logged: path only) and the row requests in all. */
export function rowRequests(emu: RunningEmulator): { queries: number; pages: number } {
  const rows = emu.requestLog.filter((entry) => entry.bucket === 'rows');
  return { queries: rows.filter((entry) => entry.method === 'POST').length, pages: rows.filter((entry) => entry.method === 'GET').length };
}

/** A small deterministic generator (kill points that can be replayed). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Runs tds and kills it (SIGKILL) once the emulator has seen `posts` more webhook POSTs (wherever the
 * run is then: journaling, waiting for an answer, reconciling); resolves with how it ended.
 */
export function killAfterPosts(harness: PushHarness, args: string[], posts: number): Promise<string> {
  const target = webhookPosts(harness.emu).length + posts;
  const { child, ended, stderr } = harness.spawn(args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const watch = setInterval(() => {
    if (webhookPosts(harness.emu).length >= target) child.kill('SIGKILL');
  }, 2);
  return ended
    .then(({ code, signal }) => (signal ? `killed after ${posts} posts` : `exit ${code}${code === 0 ? '' : `: ${stderr().trim()}`}`))
    .finally(() => clearInterval(watch));
}

/** Another client of the same webhook (a live form, another pipeline): one object a post, at a steady rate. */
export interface OtherWriter {
  /** Resolves once `posts` of its posts have been answered. */
  answered(posts: number): Promise<void>;
  /** Stops posting; resolves with the posts made, once the last one has been answered. */
  stop(): Promise<number>;
}

/**
 * Posts `{other: n}` to `url` every `everyMs`, once `begin()` says so, at most `max` times (it stops
 * itself), so the webhook's intake stays open while a push waits for its rows.
 */
export function otherWriter(url: string, options: { everyMs: number; max: number; begin?: () => boolean }): OtherWriter {
  let posts = 0;
  let answers = 0;
  const waiting: Array<{ posts: number; resolve: () => void }> = [];
  const inFlight = new Set<Promise<unknown>>();
  const answer = (): void => {
    answers += 1;
    for (const wait of waiting.filter((one) => one.posts <= answers)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  };
  const timer = setInterval(() => {
    if (options.begin && !options.begin()) return;
    if (posts >= options.max) return clearInterval(timer);
    posts += 1;
    const post = request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ other: posts }) })
      .then((response) => response.body.dump())
      .then(answer)
      .finally(() => inFlight.delete(post));
    inFlight.add(post);
  }, options.everyMs);
  return {
    answered: (count) => (answers >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ posts: count, resolve }))),
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      return posts;
    },
  };
}

/** A tds process left running: its streams so far, and how it ended. */
export interface RunningTds {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** Starts tds against the harness's emulator (harness.spawn), stdin a pipe the test writes. */
export function startTds(harness: PushHarness, args: string[]): RunningTds {
  const { child, exit, stdout, stderr } = harness.spawn(args, { stdio: ['pipe', 'pipe', 'pipe'], openStdin: true });
  return { child, pid: child.pid ?? 0, stdout, stderr, exit };
}

/**
 * The most requests the emulator held at once. A request's arrival (`at`) is read in whole milliseconds
 * and its duration finer, so a request that came right after another's answer can seem to start up to
 * a millisecond before that answer left: ends are counted a millisecond early.
 */
export function mostAtOnce(entries: RequestLogEntry[]): number {
  const edges = entries.flatMap((entry) => [
    { at: entry.at, step: 1 },
    { at: entry.at + entry.durationMs - 1, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.step));
  return most;
}

/** The most of `entries` that arrived within any `windowMs` (a sliding window, as the service counts). */
export function mostInWindow(entries: RequestLogEntry[], windowMs: number): number {
  const times = entries.map((entry) => entry.at).sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last += 1) {
    while (times[last]! - times[first]! >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

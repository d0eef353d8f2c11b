import type { DuckDBConnection } from '@duckdb/node-api';
import { type Context, TdsError } from '../core/index.js';
import { type Database, quoteLiteral } from '../duckdb/index.js';
import type { ApiClient } from '../http/index.js';
import { typedRowReader } from '../records/index.js';
import { PAGE_LIMIT_MAX, type Field, type RowsPage, type Table } from '../service/index.js';
import { deleteGone, serviceDate } from './pass.js';
import { beginSync, endSync } from './history/history-objects.js';
import type { MirrorAccess } from './mirror-db.js';
import { MirrorWriter } from './mirror-writer.js';
import { prepareTable } from './apply-schema.js';
import { formatAge, loadStates, type TableState, type VerifyState } from './table-state.js';

// --follow's verification: between rounds, the followed tables are read again page by page, newest
// first, with the spare share of the row-read limit, so that what a round cannot see (edits of old
// rows, re-runs, deletions) reaches the mirror within --max-stale. Each page is applied as a full pass
// applies its rows, in one transaction with the verification's progress (so a stop continues there),
// as a sync of its own (mode `verify`) whose changes --changes prints:
//
// - its rows are written (a new `_updatedAt` moves the old version into history);
// - a page covers the creation times from its oldest row up to the previous page's oldest (the first
//   page: everything above): a mirror row in that span that the page lacks is gone. Rows at the page's
//   oldest time may continue on the next page, so that time is left to the next page, which knows the
//   IDs seen at it. A row still in the webhook intake is in no page and in no mirror yet: nothing to
//   judge. Rounds write between pages only rows they read, which a later page of the span sees too.

/** What the verifier needs from the run. */
export interface VerifySession {
  ctx: Context;
  client: ApiClient;
  /** The mirror, held while a page is written (never while it is read). */
  mirror: MirrorAccess;
  /** The schema --follow knows for a table (undefined: read it). */
  fieldsOf(tableId: string): Field[] | undefined;
  say(line: string): void;
  /** --changes: told each page's sync, to print what it changed. */
  changed?(db: Database, tableId: string, syncId: number): Promise<void>;
  taken: Set<string>;
}

export interface VerifyOptions {
  /** --max-stale (undefined: off, no verification). */
  maxStaleMs: number | undefined;
  /** --max-share. */
  maxShare: number;
}

/** How far 429s (other clients' traffic) may stretch the spacing of verification pages. */
const MAX_BACKOFF = 16;

/** The verification's timings (ms of this process's clock); Infinity: no verification. */
export interface VerifyTimings {
  /** The share's spacing of row requests: one every this many ms is --max-share of the limit. */
  shareMs: number;
  /** --max-stale (a pass is planned a tenth early). */
  maxStaleMs: number;
  /** The row-read limit's window (a minute of the service). */
  windowMs: number;
}

/** How many windows back the pages look for the most a round read, to leave room for it in each window. */
const ROUNDS_REMEMBERED = 2;

/** What the share can keep: a pass every `keepsMs`, in which the rounds are expected to read `roundReads` rows pages. */
export interface VerifyKeeps {
  keepsMs: number;
  roundReads: number;
  /** The share cannot keep --max-stale. */
  tooLarge: boolean;
}

/**
 * The verification's schedule, times in and pages out (no clock of its own), on two clocks:
 *
 * - the plan: a page every `passMs / P` (never closer than the share's spacing), each page's time one
 *   interval after the last page's time, never restarted from now, so a page or round that ran late is
 *   caught up by the pages after it;
 * - the share: every row request, a page's or a round's, moves it one share's spacing on from when the
 *   request was made or from where it stood, whichever is later; a page waits for it. So pages start at
 *   least a share's spacing apart, and after a round's reads wait for them to be paid: catching up never
 *   goes above the share (what the share did not spend while a page ran late is not spent later).
 *
 * A pass so takes at least (P + R) share's spacings, R the rounds' row requests meanwhile: the plan counts
 * them at the rate the rounds read so far (at first, all they read so far fall in this pass). The rounds
 * are never held back, so a round that reads several pages in a window the pages have filled would put it
 * over the share: a page goes only while the window (the client's log of every row request, rounds',
 * pages' and retries' alike) holds fewer than `ceiling`, which leaves room for as many as the recent rounds
 * read at most, and at least one (the first minute too); with the +1 of s × 60 + 1, a round that reads one
 * more than that still keeps to it.
 *
 * Behind (a table past its bound, or one the plan's spacing would leave past it before its pass ends): the
 * pages go at the share's rate, not the plan's, spending what the share left unspent in the last window
 * too, and they get as long between two rounds as the last round took (up to a window), not only --every:
 * on a loaded machine a round of many tables takes seconds of its own, and pages that ran only in the
 * --every between rounds left most of the share unused (issue 42). The plan running more than a page late
 * gives the pages that time too.
 */
export class VerifySchedule {
  private planAt = Infinity;
  private shareAt = -Infinity;
  private intervalMs = Infinity;
  private backoff = 1;
  /** A page that met a 429 puts the next off until then, behind or not (afterPage). */
  private heldUntil = -Infinity;
  private roundReads = 0;
  /** A table is behind its bound (hurry). */
  private behind = false;
  /** How long the last round after the first took. */
  private lastRoundMs = 0;
  /** The row requests of the last rounds, and until when each is remembered. */
  private rounds: { reads: number; until: number }[] = [];

  constructor(
    private readonly startedAt: number,
    private readonly timings: VerifyTimings,
  ) {}

  /**
   * The followed tables' pages (P) as the last listing gave them, and the largest table's (L): the timings, and the
   * pass the share can keep. A table's verified_at is when its last pass began, and a pass begins once the
   * others' had theirs: it ages up to P + L pages' spacing, which the plan keeps within 0.9 × --max-stale.
   */
  plan(now: number, pages: number, largest = 0): VerifyKeeps {
    const { shareMs, maxStaleMs } = this.timings;
    const passMs = 0.9 * maxStaleMs;
    if (pages === 0 || !Number.isFinite(passMs) || !Number.isFinite(shareMs)) {
      this.intervalMs = Infinity;
      return { keepsMs: Infinity, roundReads: 0, tooLarge: false };
    }
    const elapsed = Math.max(now - this.startedAt, (pages + this.roundReads) * shareMs);
    // the room kept for a round is the rounds' when they come, and the pages' when they do not: not counted
    const roundsPart = (this.roundReads / elapsed) * shareMs;
    const atShareMs = roundsPart >= 1 ? Infinity : (pages * shareMs) / (1 - roundsPart);
    const spacing = Math.max(shareMs, passMs / (pages + largest));
    if (this.intervalMs === Infinity) this.planAt = now + spacing;
    this.intervalMs = spacing;
    return {
      keepsMs: Math.max(atShareMs, passMs),
      roundReads: Number.isFinite(atShareMs) ? Math.round(atShareMs / shareMs - pages) : Infinity,
      tooLarge: atShareMs > maxStaleMs,
    };
  }

  /** Verification reads at the share's full rate (--max-stale asks at least what the share allows): every row request of a round puts it off. */
  get atShare(): boolean {
    return Number.isFinite(this.intervalMs) && this.intervalMs === this.timings.shareMs;
  }

  /** When the next page is due by the plan and the share (behind: the share, and a 429's backoff); Infinity when none is. It goes when the window also has room (`ceiling`). */
  get dueAt(): number {
    return this.intervalMs === Infinity ? Infinity : Math.max(this.behind ? this.heldUntil : this.planAt, this.shareAt);
  }

  /**
   * How far back the share not spent counts at `now`: not at all, except while behind, when what the last
   * window left unspent (a round that took long and read little) may be spent; `ceiling` keeps each window
   * to the share.
   */
  private unspentFrom(now: number): number {
    return this.behind ? now - (this.timings.windowMs - this.timings.shareMs) : now;
  }

  /** The plan's spacing of pages (ms; Infinity: no verification). */
  get pageSpacing(): number {
    return this.intervalMs;
  }

  /** Whether a table is behind its bound, or will be before its pass ends at the plan's spacing (Verifier.behind). */
  hurry(behind: boolean): void {
    this.behind = behind;
  }

  /**
   * Until when pages may run before a round due at `roundAt` (`now`: the round before it just ended): then,
   * or while behind (a table, or the plan by more than a page), until the last round's time again has passed.
   */
  pagesUntil(now: number, roundAt: number): number {
    if (this.intervalMs === Infinity) return roundAt;
    const late = this.behind || this.planAt + this.intervalMs < now;
    return late ? Math.max(roundAt, now + Math.min(this.lastRoundMs, this.timings.windowMs)) : roundAt;
  }

  /**
   * A page that goes `now` goes only while the last window holds fewer of this client's row requests than
   * this: the share (s × 60), less the room kept for the next round: the most a recent round read, at least one.
   */
  ceiling(now: number): number {
    const perWindow = Math.max(1, Math.floor(this.timings.windowMs / this.timings.shareMs + 1e-9));
    const recent = this.rounds.filter((round) => round.until > now).map((round) => round.reads);
    return perWindow - Math.min(perWindow - 1, Math.max(1, ...recent));
  }

  /**
   * A round that began at `since` read `requests` rows pages in `tookMs`: paid from the share (pages wait for them).
   * The first round (`first`: it catches up since the last sync) tells nothing of the room or time the rounds to come need.
   */
  spent(since: number, requests: number, round: { first?: boolean; tookMs?: number } = {}): void {
    const { first = false, tookMs = 0 } = round;
    if (!first) this.lastRoundMs = tookMs;
    this.roundReads += requests;
    this.rounds = this.rounds.filter((round) => round.until > since);
    if (!first) this.rounds.push({ reads: requests, until: since + ROUNDS_REMEMBERED * this.timings.windowMs });
    if (requests === 0) return;
    this.shareAt = Math.max(this.shareAt, this.unspentFrom(since)) + requests * this.timings.shareMs;
  }

  /** A page starts `now`: the next one's time on both clocks; the spacing this page was planned with. */
  paged(now: number): number {
    const spacing = this.intervalMs * this.backoff;
    this.planAt += spacing;
    // pages ahead of the plan while behind do not put the plan's next page off by more than one spacing
    if (this.behind) this.planAt = Math.min(this.planAt, now + spacing);
    this.shareAt = Math.max(this.shareAt, this.unspentFrom(now)) + this.timings.shareMs;
    return spacing;
  }

  /** After a page (`now`): one that met a 429 puts the next off by twice its spacing from now; clean ones bring the spacing back. */
  afterPage(now: number, limited: boolean, spacing: number): void {
    if (limited) {
      this.backoff = Math.min(MAX_BACKOFF, this.backoff * 2);
      this.heldUntil = now + this.intervalMs * this.backoff;
    } else if (this.backoff > 1) {
      this.backoff /= 2;
      this.heldUntil = now + spacing / 2;
    } else return;
    this.planAt = Math.max(this.planAt, this.heldUntil);
  }
}

/** Reads verification pages when the schedule has them due, with the spare share of the row-read limit. */
export class Verifier {
  private readonly schedule: VerifySchedule;
  private warned = false;
  /** The tables said to be past --max-stale (once each). */
  private readonly saidStale = new Set<string>();
  /** The followed tables past --max-stale when last looked at. */
  stale: StaleTable[] = [];
  /** The states were read once. */
  private read = false;
  /** The followed tables' states as last read. */
  private followed: TableState[] = [];

  constructor(
    private readonly session: VerifySession,
    private readonly options: VerifyOptions,
  ) {
    const { maxStaleMs, maxShare } = options;
    const { windows, retryScale } = session.client.timings;
    const off = maxStaleMs === undefined || maxShare <= 0;
    this.schedule = new VerifySchedule(performance.now(), {
      shareMs: off ? Infinity : windows.rows.perMs / (windows.rows.requests * maxShare),
      maxStaleMs: off ? Infinity : maxStaleMs / retryScale,
      windowMs: windows.rows.perMs,
    });
  }

  /**
   * The followed tables as the last listing gave them: the pages to read, and so the timings; and their states
   * (read again when the round wrote): the tables past the bound said, and whether verification is behind.
   */
  async plan(tables: readonly Table[], roundWrote = true): Promise<void> {
    const pages = tables.reduce((sum, table) => sum + pagesOf(table), 0);
    const largest = Math.max(0, ...tables.map(pagesOf));
    this.sayTooLarge(pages, this.schedule.plan(performance.now(), pages, largest));
    // an idle round leaves the file alone (readers that do not say they wait get in then): the states the last page read
    if (roundWrote || !this.read) {
      this.followed = followedStates(await this.session.mirror.use((db) => loadStates(db.connection)), tables);
      this.read = true;
    }
    this.assess(this.followed, tables);
  }

  private sayTooLarge(pages: number, { keepsMs, roundReads, tooLarge }: VerifyKeeps): void {
    const { maxStaleMs, maxShare } = this.options;
    const { retryScale } = this.session.client.timings;
    if (maxStaleMs === undefined || !tooLarge || this.warned) return;
    this.warned = true;
    const said = `the followed tables are too large for --max-stale ${formatAge(maxStaleMs)} at --max-share ${maxShare}: `;
    if (!Number.isFinite(keepsMs)) {
      this.session.say(`${said}the rounds' row requests take the whole share, so old rows are not verified while they do`);
      return;
    }
    const keeps = formatAge(keepsMs * retryScale);
    const rounds = roundReads > 0 ? `, with the rounds' ${plural(roundReads, 'row request')} meanwhile,` : '';
    this.session.say(
      `${said}their ${plural(pages, 'page')}${rounds} are verified every ${keeps}, so changes to old rows reach the mirror within ${keeps}`,
    );
  }

  /** The bound on the service's clock (ms): --max-stale at the rate scale; undefined: off. */
  private get boundMs(): number | undefined {
    const { maxStaleMs } = this.options;
    return maxStaleMs === undefined ? undefined : maxStaleMs / this.session.client.timings.retryScale;
  }

  /** The tables past the bound said (once each), kept for the progress line, and the schedule told whether to hurry. */
  private assess(followed: readonly TableState[], tables: readonly Table[]): void {
    const bound = this.boundMs;
    if (bound === undefined) return;
    const now = this.session.client.serviceNow() ?? Date.now();
    this.stale = staleTables(followed, now, bound, this.session.client.timings.retryScale);
    this.sayStale();
    this.schedule.hurry(behind(followed, tables, { now, boundMs: bound, spacingMs: this.schedule.pageSpacing }));
  }

  /** The followed tables past --max-stale now (on the service's clock, their states as last read): the follower's line shows them. */
  staleNow(): StaleTable[] {
    const bound = this.boundMs;
    if (bound === undefined) return [];
    const now = this.session.client.serviceNow() ?? Date.now();
    return staleTables(this.followed, now, bound, this.session.client.timings.retryScale);
  }

  /** Until when pages may run before the round due at `roundAt` (performance.now() time; VerifySchedule.pagesUntil). */
  pagesUntil(roundAt: number): number {
    return this.schedule.pagesUntil(performance.now(), roundAt);
  }

  /** When the next page is due (performance.now() time): by the schedule, and when the row-read window has room for it; Infinity when none is. */
  get dueAt(): number {
    const due = this.schedule.dueAt;
    if (due === Infinity) return due;
    const now = performance.now();
    return Math.max(due, now + this.session.client.rowReadWaitMs(this.schedule.ceiling(now)));
  }

  /** Verification reads at the share's full rate: a round leaves a row count that only fell (rows deleted) to it. */
  get atShare(): boolean {
    return this.schedule.atShare;
  }

  /** A round that began at `since` (performance.now() time) read `requests` rows pages: they come out of the share verification may use. */
  spent(since: number, requests: number, first = false): void {
    this.schedule.spent(since, requests, { first, tookMs: performance.now() - since });
  }

  /**
   * A table whose verification fell behind --max-stale for a reason the plan did not foresee (a slow
   * machine, other clients' 429s) is said once; tables too large for the share were said as a whole.
   */
  private sayStale(): void {
    const { maxStaleMs } = this.options;
    if (maxStaleMs === undefined || this.warned) return;
    for (const stale of this.stale) {
      if (this.saidStale.has(stale.tableId)) continue;
      this.saidStale.add(stale.tableId);
      this.session.say(
        `${stale.name}: last verified ${formatAge(stale.ageMs)} ago, past --max-stale ${formatAge(maxStaleMs)}: changes to its old rows may not be in the mirror yet (verification is catching up)`,
      );
    }
  }

  /** Reads and applies one page of the table whose verification is oldest (or under way). */
  async page(tables: readonly Table[]): Promise<void> {
    const spacing = this.schedule.paged(performance.now());
    const limitedBefore = this.session.client.stats.rateLimited;
    try {
      const states = await this.session.mirror.use((db) => loadStates(db.connection));
      const followed = (this.followed = followedStates(states, tables));
      this.assess(followed, tables);
      const state = [...followed].sort(verifyFirst)[0];
      const table = state && tables.find((candidate) => candidate.id === state.tableId);
      if (state && table) await verifyPage(this.session, table, state, this.schedule.ceiling(performance.now()));
    } finally {
      this.schedule.afterPage(performance.now(), this.session.client.stats.rateLimited > limitedBefore, spacing);
    }
  }
}

export interface StaleTable {
  tableId: string;
  name: string;
  /** How long ago its last complete pass began (ms of the service's clock, as --max-stale counts). */
  ageMs: number;
}

/** The tables whose last complete pass began longer ago than `boundMs` (ms of `now`'s clock) before `now`. */
export function staleTables(states: readonly TableState[], now: number, boundMs: number, scale = 1): StaleTable[] {
  return states.flatMap((state) => {
    if (state.verifiedAt === null) return [];
    const age = now - Date.parse(state.verifiedAt);
    return age > boundMs ? [{ tableId: state.tableId, name: state.name, ageMs: age * scale }] : [];
  });
}

/** A table's pages (at least one: a verification reads an empty table's one page). */
const pagesOf = (table: Table): number => Math.max(1, Math.ceil(table.rowCount / PAGE_LIMIT_MAX));

/** The states of the followed tables, without a pass of a round under way. */
const followedStates = (states: readonly TableState[], tables: readonly Table[]): TableState[] =>
  states.filter((state) => state.pass === null && tables.some((table) => table.id === state.tableId));

/**
 * Whether a followed table is past its bound, or will be before verification, going at the plan's page
 * spacing in its order (verifyFirst), has read its pages: its verified_at moves only when its pass ends.
 * `now` and `boundMs` on the service's clock, `spacingMs` on this process's: both real milliseconds.
 */
export function behind(
  followed: readonly TableState[],
  tables: readonly Table[],
  { now, boundMs, spacingMs }: { now: number; boundMs: number; spacingMs: number },
): boolean {
  if (!Number.isFinite(spacingMs)) return false;
  let ahead = 0;
  for (const state of [...followed].sort(verifyFirst)) {
    const table = tables.find((candidate) => candidate.id === state.tableId);
    ahead += table ? pagesOf(table) : 1;
    if (state.verifiedAt === null || now + ahead * spacingMs - Date.parse(state.verifiedAt) > boundMs) return true;
  }
  return false;
}

const plural = (count: number, noun: string): string => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;

/** A verification under way first, then the table verified longest ago (never first of all). */
function verifyFirst(a: TableState, b: TableState): number {
  if ((a.verify === null) !== (b.verify === null)) return a.verify === null ? 1 : -1;
  return (a.verifiedAt === null ? -Infinity : Date.parse(a.verifiedAt)) - (b.verifiedAt === null ? -Infinity : Date.parse(b.verifiedAt));
}

/** `ceiling`: each attempt of the page's request (retries too) waits until the row-read window holds fewer (VerifySchedule). */
async function verifyPage(session: VerifySession, table: Table, state: TableState, ceiling: number): Promise<void> {
  const prior = state.verify;
  let date: string | null = null;
  let page: RowsPage;
  try {
    page = await session.client.rowsPage(
      table.id,
      { limit: PAGE_LIMIT_MAX, ...(prior ? { cursor: prior.cursor } : {}) },
      (_body, header) => (date = serviceDate(header)),
      ceiling,
    );
  } catch (error) {
    if (!(prior && error instanceof TdsError && error.status === 400)) throw error;
    // the saved cursor expired: the verification starts over at the newest row
    state.verify = null;
    await session.mirror.use((db) => db.connection.run('UPDATE _tds_tables SET verify_pass = NULL WHERE table_id = $1', [state.tableId]));
    return;
  }
  let fields = session.fieldsOf(table.id) ?? (await session.client.schema(table.id)).fields;
  if (page.rows.some((row) => Object.keys(row.cells).some((id) => !fields.some((field) => field.id === id)))) {
    fields = (await session.client.schema(table.id)).fields;
  }
  const verifyStarted = prior?.startedAt ?? date;
  await session.mirror.use((db) => applyPage(session, db, { table, state, fields, page, verifyStarted }));
}

/** A verification page read: its rows written and the rows it shows gone deleted, as a sync of its own. */
async function applyPage(
  session: VerifySession,
  db: Database,
  read: { table: Table; state: TableState; fields: Field[]; page: RowsPage; verifyStarted: string | null },
): Promise<void> {
  const { connection } = db;
  const { table, state, fields, page, verifyStarted } = read;
  const prior = state.verify;
  const { plan, current } = await prepareTable(table, state, fields, { db, taken: session.taken, say: session.say });
  const startedAt = new Date().toISOString();
  const syncId = await beginSync(connection, { tableId: table.id, mirrorTable: current.mirrorTable, startedAt, mode: 'verify' });
  const next = nextVerify(prior, page, verifyStarted);
  const done = next === null;
  current.verify = next;
  if (done) current.verifiedAt = verifyStarted ?? current.verifiedAt;
  let unfit = 0;
  let deleted = 0;
  const typed = typedRowReader(plan.columns);
  const writer = new MirrorWriter(db, { table: current.mirrorTable, historyTable: current.historyTable!, syncId }, plan.columns);
  let counts = { inserted: 0, updated: 0 };
  await writer.open();
  try {
    await writer.append(page.rows.map((row) => typed(row, () => (unfit += 1))));
    const gone = goneInPage(prior, page);
    counts = await writer.write(current, true, async (inTransaction: DuckDBConnection) => {
      if (gone !== null) deleted = await deleteGone(inTransaction, current, { where: gone, syncId, foundGoneAt: verifyStarted });
    });
  } catch (error) {
    await endSync(connection, syncId, { ...syncCounts(page, counts, 0, unfit), complete: false }, session.client.serviceNow()).catch(
      () => undefined,
    );
    throw error;
  } finally {
    await writer.close().catch(() => undefined);
  }
  await endSync(connection, syncId, { ...syncCounts(page, counts, deleted, unfit), complete: true }, session.client.serviceNow());
  if (counts.inserted + counts.updated + deleted > 0) await session.changed?.(db, table.id, syncId);
}

function syncCounts(page: RowsPage, counts: { inserted: number; updated: number }, deleted: number, unfit: number) {
  return { mode: 'verify' as const, requests: 1, rowsRead: page.rows.length, ...counts, deleted, unfit, pruned: null };
}

/** Where the verification stands after this page; null when the page was the last (it is complete). */
function nextVerify(prior: VerifyState | null, page: RowsPage, startedAt: string | null): VerifyState | null {
  const last = page.rows.at(-1);
  if (!page.hasNextPage || page.nextCursor === null || last === undefined) return null;
  const edge = last.createdAt;
  const atEdge = page.rows.filter((row) => Date.parse(row.createdAt) === Date.parse(edge)).map((row) => row.id);
  const carried = prior && Date.parse(prior.edge) === Date.parse(edge) ? prior.edgeIds : [];
  return { cursor: page.nextCursor, startedAt, edge, edgeIds: [...new Set([...carried, ...atEdge])] };
}

/** The mirror rows this page shows gone (SQL condition), or null when it judges none. */
function goneInPage(prior: VerifyState | null, page: RowsPage): string | null {
  const last = page.rows.at(-1);
  if (page.hasNextPage && last === undefined) return null;
  const seen = [...page.rows.map((row) => row.id), ...(prior?.edgeIds ?? [])];
  const upper = prior === null ? 'true' : `"_createdAt" <= ${quoteLiteral(prior.edge)}::TIMESTAMPTZ`;
  const lower = page.hasNextPage ? `"_createdAt" > ${quoteLiteral(last!.createdAt)}::TIMESTAMPTZ` : 'true';
  const notSeen = seen.length === 0 ? 'true' : `"_id" NOT IN (${seen.map((id) => quoteLiteral(id)).join(', ')})`;
  return `${upper} AND ${lower} AND ${notSeen}`;
}

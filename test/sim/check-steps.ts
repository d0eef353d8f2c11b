import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnTds } from '../helpers/spawn-tds.js';
import { lastLines, runClient, spawnClient, type ClientRun } from './client.js';
import type { Step } from './history.js';
import type { Ledger } from './invariants.js';
import type { LakeView } from './lake-view.js';
import { ident, mirroredTables, query } from './mirror-view.js';
import type { NotifyReceiver, Received } from './notify-receiver.js';
import { expectedStale, verifications, type ClockSpan } from './staleness.js';
import type { World } from './world.js';

// `tds check FILE --notify URL` in a simulated run (invariant 6, and issue 42's findings 3 to 5): a checks
// file generated over the mirror's tables (row counts, fill, freshness, and now and then a column no table
// has), the statuses tds reports judged where the oracle knows them, and every message the receiver got
// judged against the statuses a receiver was last told (answered 2xx): each change is sent until one is
// taken, none is sent without a change. Sometimes tds is killed during the POST, and sometimes a follower
// holds the mirror while tds checks it (it reads the mirror as it is).

/** A result of `tds check --format json`. */
interface CheckResultLine {
  table: string;
  check: string;
  status: 'pass' | 'warn' | 'fail' | 'error';
  observed: unknown;
}

/** A column no table has: its check cannot be evaluated. */
const MISSING_COLUMN = 'Nmae';

const key = (table: string, check: string): string => JSON.stringify([table, check]);

export class CheckSteps {
  /** Per check, the status a receiver last took (answered 2xx); a check not in it was never told. */
  private readonly told = new Map<string, string>();

  private readonly world: World;
  private readonly ledger: Ledger;
  private readonly lake: LakeView;
  private readonly receiver: NotifyReceiver;
  private readonly checkRun: (run: ClientRun) => void;
  private readonly tmp: string;

  constructor(parts: {
    world: World;
    ledger: Ledger;
    lake: LakeView;
    receiver: NotifyReceiver;
    /** invariant 8 of a command (ClientSteps.checkRun) */
    checkRun: (run: ClientRun) => void;
    /** the temporary folder of the processes it starts */
    tmp: string;
  }) {
    ({ world: this.world, ledger: this.ledger, lake: this.lake, receiver: this.receiver, checkRun: this.checkRun, tmp: this.tmp } = parts);
  }

  async check(i: number, step: Extract<Step, { kind: 'check' }>): Promise<void> {
    const { world } = this;
    const mirrored = world.inSimOrder(await mirroredTables(world)).filter((table) => world.current.tables.has(table.tableId));
    if (mirrored.length === 0) return;
    const tables = mirrored.slice(0, 2);
    const counts = new Map<string, number>();
    // a stale check where a follower recorded a bound (without one it is an error, as a broken check is)
    const recorded = await verifications(world);
    const bounded = tables.filter((table) => (recorded.get(table.tableId)?.maxStaleMs ?? null) !== null).map((table) => table.tableId);
    const lines = ['tables:'];
    for (const [n, table] of tables.entries()) {
      const rows = world.current.tables.get(table.tableId)!.rows.size;
      const min = Math.floor((rows * step.rowsMin) / 1000) + (step.rowsMin > 1000 ? 1 : 0);
      counts.set(table.tableId, min);
      lines.push(`  ${table.tableId}:`, '    checks:', `      - rows: {min: ${min}}`, `      - fill: {column: A, min: ${step.fillMin}}`);
      lines.push('      - fresh: {max_age: 2h}');
      if (bounded.includes(table.tableId)) lines.push('      - stale: {}');
      if (step.broken && n === 0) lines.push(`      - fill: {column: ${MISSING_COLUMN}, min: 0.5}`);
    }
    const file = join(world.harness.dir, `checks-${i}.yaml`);
    await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    this.lake.outOfDate(tables.map((table) => table.tableId));

    const args = ['check', file, '--format', 'json', '--notify', this.receiver.url, '--timeout', '5'];
    const { held } = this.receiver.script(step.receiver, step.killDuringPost);
    let run: ClientRun;
    const follower = step.killDuringPost ? undefined : await this.startFollower(i);
    const from = Date.parse(await world.now());
    try {
      run = step.killDuringPost ? await this.killedDuringPost(args, held) : await runClient(world, args, { TMPDIR: this.tmp });
    } finally {
      await follower?.stop();
    }
    const span = { from, to: Date.parse(await world.now()) };
    const received = this.receiver.finish();
    this.checkRun(run);
    if (run.killed) return this.judgeKilled(received);
    this.ledger.check(
      run.code === 0 || run.code === 9,
      6,
      () => `tds ${run.args.join(' ')} exited ${run.code}${follower ? ' while a follower held the mirror' : ''}: ${lastLines(run.stderr)}`,
    );
    const results = JSON.parse(run.stdout) as CheckResultLine[];
    await this.judgeResults(results, run, counts, step.broken);
    // a follower may verify a table while tds checks it: the stale check judged where none ran
    if (!follower) await this.judgeStale(results, bounded, span);
    this.judgeNotified(results, received, run);
  }

  /** What the oracle knows of each status: the row counts (of the mirror as tds left it), the missing column, the exit. */
  private async judgeResults(results: CheckResultLine[], run: ClientRun, mins: Map<string, number>, broken: boolean): Promise<void> {
    const mirrored = await mirroredTables(this.world);
    for (const [tableId, min] of mins) {
      const table = mirrored.find((candidate) => candidate.tableId === tableId)!;
      const rows = Number((await query(this.world, `SELECT count(*) AS n FROM ${ident(table.mirrorTable)}`))[0]?.n);
      const result = results.find((candidate) => candidate.table === tableId && candidate.check.startsWith('rows'));
      const expected = rows >= min ? 'pass' : 'fail';
      this.ledger.check(
        result?.status === expected,
        6,
        () =>
          `tds check: rows of ${table.mirrorTable} (${rows} in the mirror, min ${min}) is ${result?.status ?? 'absent'}, not ${expected}`,
      );
    }
    if (broken) {
      const result = results.find((candidate) => candidate.check.includes(MISSING_COLUMN));
      this.ledger.check(
        result?.status === 'error',
        6,
        () => `tds check: a fill check of a column no table has is ${result?.status ?? 'absent'}, not error`,
      );
    }
    const bad = results.some((result) => result.status === 'fail' || result.status === 'error');
    this.ledger.check(
      run.code === (bad ? 9 : 0),
      6,
      () => `tds check exited ${run.code} with ${bad ? 'a check failed or in error' : 'every check passing or warning'}`,
    );
  }

  /**
   * Invariant 9 of a check run: each stale check passes exactly when its table's verified_at is within its
   * recorded bound on the service's clock (tds check hears the service before it checks), else fails.
   */
  private async judgeStale(results: CheckResultLine[], tableIds: readonly string[], span: ClockSpan): Promise<void> {
    const recorded = await verifications(this.world);
    for (const tableId of tableIds) {
      const verification = recorded.get(tableId);
      const result = results.find((candidate) => candidate.table === tableId && candidate.check.startsWith('stale'));
      if (!verification) continue;
      // not verified yet, or no bound recorded: the check cannot be evaluated
      const unknown = verification.verifiedAt === null || verification.maxStaleMs === null;
      const stale = unknown ? undefined : expectedStale(verification, span);
      if (!unknown && stale === undefined) continue;
      const expected = unknown ? 'error' : stale ? 'fail' : 'pass';
      this.ledger.check(
        result?.status === expected,
        9,
        () =>
          `tds check: stale of ${tableId} is ${result?.status ?? 'absent'}, not ${expected} (verified ${verification.verifiedAt === null ? 'never' : new Date(verification.verifiedAt).toISOString()}, bound ${verification.maxStaleMs} ms, clock ${new Date(span.from).toISOString()} to ${new Date(span.to).toISOString()})`,
      );
    }
  }

  /**
   * The messages of a run that ended: none when no status differs from what a receiver took; else one
   * (a 500, a reset and a hang are not tried again in the run), carrying every such change and no other.
   */
  private judgeNotified(results: CheckResultLine[], received: Received[], run: ClientRun): void {
    const due = new Map<string, string>();
    for (const result of results) {
      const was = this.told.get(key(result.table, result.check));
      if (was !== result.status && !(was === undefined && result.status === 'pass'))
        due.set(key(result.table, result.check), result.status);
    }
    this.ledger.check(
      received.length === (due.size === 0 ? 0 : 1),
      6,
      () =>
        `tds check --notify posted ${received.length} messages with ${due.size} status changes due (${[...due.keys()].slice(0, 3).join(', ')}): ${lastLines(run.stderr)}`,
    );
    const message = received[0];
    if (!message) return;
    const sent = new Map(message.changes.map((change) => [key(change.table, change.check), change.to]));
    const missing = [...due].filter(([name, status]) => sent.get(name) !== status).map(([name]) => name);
    const extra = [...sent.keys()].filter((name) => !due.has(name));
    this.ledger.check(
      missing.length === 0 && extra.length === 0,
      6,
      () =>
        `a notification left out ${missing.length} status changes (${missing.slice(0, 2).join(', ')}) and carried ${extra.length} without a change (${extra.slice(0, 2).join(', ')})`,
    );
    if (message.answered === 'ok') for (const [name, status] of sent) this.told.set(name, status);
  }

  /** A run killed during its POST: at most the one message, and nothing counts as told. */
  private judgeKilled(received: Received[]): void {
    this.ledger.check(received.length <= 1, 6, () => `a tds check killed during its POST had posted ${received.length} messages`);
  }

  /** tds as a process, SIGKILLed once the receiver holds its POST (or left to end when it posts nothing). */
  private async killedDuringPost(args: string[], held: Promise<void>): Promise<ClientRun> {
    return spawnClient(this.world, args, { killWhen: held, env: { TMPDIR: this.tmp } });
  }

  /**
   * A follower of the mirror's tables that holds the mirror while the check runs (every other check step
   * that kills nothing): started, waited for until it has synced once, and stopped with SIGTERM after.
   */
  private async startFollower(i: number): Promise<{ stop: () => Promise<void> } | undefined> {
    if (i % 2 === 0) return undefined;
    const { harness } = this.world;
    const child = spawnTds(['sync', '--follow', '--every', '1'], {
      cwd: harness.dir,
      env: { ...harness.env, TMPDIR: this.tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let ended = false;
    void child.ended.then(
      () => (ended = true),
      () => (ended = true),
    );
    const started = Date.now();
    // the first round's summary: the follower then holds the mirror between its rounds
    while (!ended && !/synced|incremental|full|verify/i.test(child.stderr()) && Date.now() - started < 30_000) await sleep(20);
    return {
      stop: async () => {
        if (!ended) child.child.kill('SIGTERM');
        const end = await child.ended;
        this.checkRun({
          args: ['sync', '--follow', '--every', '1'],
          ...end,
          stdout: child.stdout(),
          stderr: child.stderr(),
          killed: true,
          outlived: false,
        });
      },
    };
  }
}

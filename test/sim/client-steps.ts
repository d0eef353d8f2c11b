import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastLines, runClient, spawnClient, type ClientRun } from './client.js';
import type { Step } from './history.js';
import { startedAfterUncertain } from './push-journal.js';
import { diffStep } from './diff-step.js';
import { unexpectedOutput, versionsDiffer, versionsOfSnapshot, type Ledger } from './invariants.js';
import type { LakeView } from './lake-view.js';
import { judgeStale, verifications } from './staleness.js';
import {
  deliveredSyncs,
  ident,
  lastSyncId,
  mirroredTables,
  mirrorVersions,
  parseSyncSummary,
  query,
  syncsSince,
  verifiedTimes,
  type MirroredTable,
  type Versions,
} from './mirror-view.js';
import type { SimTable, World } from './world.js';

// The client's steps of a history: the real tds (sync in its modes, with kills, faults and --changes;
// diff; push; readers), each followed by the invariants it can break.

export class ClientSteps {
  constructor(
    private readonly world: World,
    private readonly ledger: Ledger,
    private readonly log: (line: string) => void,
    /** the temporary folder of the processes it starts, empty after each step */
    private readonly tmp: string,
    private readonly lake: LakeView,
  ) {}

  async sync(i: number, step: Extract<Step, { kind: 'sync' }>): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    // no table named and none in the mirror yet: the first live table
    const numbers = step.tables.length === 0 && mirrored.length === 0 ? [0] : step.tables;
    const named = [...new Set(numbers.map((n) => world.table(n)).filter((table) => table !== undefined))];
    if (named.length === 0 && mirrored.length === 0) return;
    // a table removed from the service that the mirror holds, named now and then (its number says when)
    const gone = world.inSimOrder(mirrored).filter((table) => world.tables.find((t) => t.id === table.tableId)?.removed);
    const namedGone = gone.length > 0 && numbers.some((n) => n % 7 === 6) ? gone[numbers[0]! % gone.length] : undefined;
    const touched = named.length > 0 ? named.map((table) => table.id) : mirrored.map((table) => table.tableId);
    const startedAt = await world.now();
    for (const id of touched) if (!this.ledger.firstSyncAt.has(id)) this.ledger.firstSyncAt.set(id, startedAt);
    const delivered = step.changes ? await this.beginChanges(touched, mirrored) : new Map<string, number>();

    const syncedBefore = await lastSyncId(world);
    // the summary: --json on stdout, or with --changes (which has stdout) the mirror's _tds_syncs
    const args = [
      'sync',
      ...named.map((table) => table.id),
      ...(namedGone ? [namedGone.tableId] : []),
      step.changes ? '--changes' : '--json',
    ];
    if (step.mode === 'full') args.push('--full');
    if (step.mode === 'maxStale') args.push('--max-stale', '1h');
    if (step.lake) args.push('--lake', this.lake.dir);
    if (step.prune) args.push('--prune-history', step.prune);
    const closeAfter = step.changes && step.closeAfter ? step.closeAfter : 0;
    if (step.fault) await world.must('POST', '/faults', { reads: step.fault, seed: i });
    let run: ClientRun;
    try {
      if (step.mode === 'follow') {
        if (!step.changes) args.splice(args.indexOf('--json'), 1);
        run = await spawnClient(world, [...args, '--follow', '--every', '1'], {
          kill: step.kill ?? { at: 12, signal: 'SIGTERM' },
          env: { TMPDIR: this.tmp },
        });
      } else if (step.kill || closeAfter > 0) {
        run = await spawnClient(world, args, { kill: step.kill, env: { TMPDIR: this.tmp }, closeAfter });
      } else run = await runClient(world, args);
    } finally {
      if (step.fault) await world.must('POST', '/faults', { reads: '' });
    }
    this.checkRun(run);
    await this.noteFirstSyncEnd(touched);
    if (!step.lake || run.code !== 0 || run.killed || run.closed || step.mode === 'follow') this.lake.outOfDate(touched);
    if (step.changes) {
      this.ledger.replay.apply(run.stdout);
      if (run.closed) await this.afterClosedPipe(run, touched, delivered);
    }
    if (namedGone) {
      // a table the service no longer has, named: refused clearly (not found), nothing else is a fault of the run
      this.ledger.check(
        run.killed || [0, 2, 4].includes(run.code ?? -1),
        8,
        () => `tds ${run.args.join(' ')} named a removed table and exited ${run.code}: ${lastLines(run.stderr)}`,
      );
      return;
    }
    if (run.closed) {
      // the consumer closed its end: a normal end of the command (as \`tds … | head\`), the mirror consistent
      this.ledger.check(
        run.killed || run.code === 0,
        3,
        () => `tds ${run.args.join(' ')} exited ${run.code} after its stdout was closed: ${lastLines(run.stderr)}`,
      );
      return;
    }
    const interrupted = run.killed || step.mode === 'follow';
    if (run.code !== 0 && !interrupted)
      await this.checkNotWedged(
        run,
        named.map((table) => table.id),
      );
    if (run.code !== 0 || step.mode === 'follow') return;

    const summaries = step.changes ? await syncsSince(world, syncedBefore) : parseSyncSummary(run.stdout);
    if (!step.changes) {
      const span = { from: Date.parse(startedAt), to: Date.parse(await world.now()) };
      await judgeStale(this.world, this.ledger, `tds ${run.args.join(' ')}`, summaries, span);
    }
    const now = await mirroredTables(world);
    const versions = await mirrorVersions(world, now);
    const verified = await verifiedTimes(world);
    const oracle = world.current.tables;
    if (named.length === 0) {
      // the mirror's tables: every one the service still has was synced, the removed ones kept as they were
      const synced = new Set(summaries.map((summary) => summary.tableId));
      const left = mirrored.filter((table) => oracle.has(table.tableId) && !synced.has(table.tableId));
      this.ledger.check(
        left.length === 0,
        1,
        () => `a sync of the mirror's tables exited 0 without syncing ${left.map((table) => table.mirrorTable).join(', ')}`,
      );
    }
    for (const summary of summaries) {
      const snapshot = oracle.get(summary.tableId);
      const mirror = versions.get(summary.tableId);
      if (!snapshot || !mirror) continue;
      const expected = versionsOfSnapshot(snapshot);
      const verifiedAt = verified.get(summary.tableId);
      if (summary.mode === 'full' && summary.complete && verifiedAt !== undefined && Date.parse(verifiedAt) < Date.parse(startedAt)) {
        // a complete pass an earlier, interrupted sync began: each row as it was when the pass began or later
        const differs = this.resumedPassDiffers(summary.tableId, verifiedAt, mirror);
        this.ledger.check(
          differs === '',
          1,
          () => `${summary.mirrorTable}: a complete pass resumed by sync ${summary.syncId} (begun ${verifiedAt}) exited 0 and ${differs}`,
        );
      } else if (summary.mode === 'full' && summary.complete) {
        const differs = versionsDiffer(expected, mirror);
        this.ledger.check(
          differs === '',
          1,
          () => `${summary.mirrorTable}: a complete full sync (sync ${summary.syncId}) exited 0 and ${differs}`,
        );
      } else {
        this.ledger.check(
          mirror.size === expected.size,
          1,
          () =>
            `${summary.mirrorTable}: sync ${summary.syncId} (${summary.mode}) exited 0 with ${mirror.size} rows in the mirror while the service held ${expected.size} (stderr: ${lastLines(run.stderr)})`,
        );
      }
      this.ledger.syncs.push({
        syncId: summary.syncId,
        tableId: summary.tableId,
        mirrorAfter: mirror,
        moment: world.moments.length,
        exact: versionsDiffer(expected, mirror) === '',
      });
    }
    if (step.changes) {
      for (const summary of summaries) {
        const replayed = this.ledger.replay.versions(summary.tableId);
        const mirror = versions.get(summary.tableId);
        if (!replayed || !mirror) continue;
        const differs = versionsDiffer(mirror, replayed);
        this.ledger.check(differs === '', 3, () => `${summary.mirrorTable}: the --changes records replayed against the mirror: ${differs}`);
      }
    }
    if (step.lake) await this.lake.afterSync(summaries.map((summary) => summary.tableId));
  }

  /**
   * How a table a resumed complete pass left differs from the contract (docs/cli.md, Freshness: rows created
   * before verified_at are in the mirror as they were then or later): the service's rows, each in a version
   * the service held at some moment since the pass began.
   */
  private resumedPassDiffers(tableId: string, verifiedAt: string, mirror: Versions): string {
    const { moments } = this.world;
    const began = Date.parse(verifiedAt);
    let from = 0;
    for (const [index, moment] of moments.entries()) if (Date.parse(moment.at) <= began) from = index;
    const held = new Map<string, Set<number>>();
    for (const moment of moments.slice(from)) {
      for (const row of moment.tables.get(tableId)?.rows.values() ?? []) {
        const versions = held.get(row.id) ?? new Set<number>();
        versions.add(Date.parse(row.updatedAt));
        held.set(row.id, versions);
      }
    }
    const expected = versionsOfSnapshot(this.world.current.tables.get(tableId)!);
    const rows = versionsDiffer(new Map([...expected].map(([id]) => [id, 0])), new Map([...mirror].map(([id]) => [id, 0])));
    if (rows !== '') return rows;
    const never = [...mirror].filter(([id, at]) => !held.get(id)?.has(at)).map(([id]) => id);
    return never.length === 0
      ? ''
      : `${never.length} rows in a version the service did not hold since the pass began (${never.slice(0, 3).join(', ')})`;
  }

  /**
   * After a consumer closed its end of --changes: records tds handed to the pipe and the consumer never read
   * are lost to it (as to \`head\`), and tds cannot know. Where the mirror noted a sync delivered that the
   * consumer did not read whole, the table's replay begins again from the mirror at its next --changes.
   */
  private async afterClosedPipe(run: ClientRun, tableIds: readonly string[], before: ReadonlyMap<string, number>): Promise<void> {
    const lines = run.stdout.split('\n');
    lines.pop();
    const records = lines.filter(Boolean).map((line) => JSON.parse(line) as { tableId: string; syncId: number });
    const last = records.at(-1);
    const read = new Map<string, number>();
    for (const record of records) {
      if (record === last || (record.tableId === last?.tableId && record.syncId === last.syncId)) continue;
      read.set(record.tableId, Math.max(read.get(record.tableId) ?? 0, record.syncId));
    }
    const after = await deliveredSyncs(this.world);
    for (const id of tableIds) {
      const noted = after.get(id);
      if (noted === undefined) continue;
      if (noted > Math.max(before.get(id) ?? 0, read.get(id) ?? 0)) this.ledger.replay.forget(id);
    }
  }

  /**
   * Before a --changes sync: a table whose stream begins now (or begins again: see afterClosedPipe) starts
   * from the mirror as it is. Returns the sync each table's stream was delivered to.
   */
  async beginChanges(tableIds: readonly string[], mirrored: readonly MirroredTable[]): Promise<Map<string, number>> {
    const delivered = mirrored.length > 0 ? await deliveredSyncs(this.world) : new Map<string, number>();
    const fresh = tableIds.filter((id) => !delivered.has(id) || !this.ledger.replay.has(id));
    const bases = await mirrorVersions(
      this.world,
      mirrored.filter((table) => fresh.includes(table.tableId)),
    );
    for (const id of fresh) this.ledger.replay.begin(id, bases.get(id) ?? new Map());
    return delivered;
  }

  /** A command that failed is run again as a plain sync of the same tables: failing again, the mirror is wedged. */
  async checkNotWedged(first: ClientRun, tableIds: string[]): Promise<void> {
    const again = await runClient(this.world, ['sync', ...tableIds]);
    this.lake.outOfDate(tableIds.length > 0 ? tableIds : this.world.tables.map((table) => table.id));
    this.checkRun(again);
    this.ledger.check(
      again.code === 0 || again.code !== first.code,
      8,
      () =>
        `wedged: \`tds ${first.args.join(' ')}\` exited ${first.code}, and a plain sync again ${again.code}: ${lastLines(again.stderr)}`,
    );
  }

  /** When the step that first completed a sync of each table ended (the service's clock). */
  private async noteFirstSyncEnd(touched: readonly string[]): Promise<void> {
    const open = touched.filter((id) => !this.ledger.firstSyncEndedAt.has(id));
    if (open.length === 0 || !existsSync(this.world.harness.db)) return;
    const endedAt = await this.world.now();
    const rows = await query(this.world, 'SELECT DISTINCT table_id FROM _tds_syncs WHERE complete AND ended_at IS NOT NULL');
    const completed = new Set(rows.map((row) => String(row.table_id)));
    for (const id of open) if (completed.has(id)) this.ledger.firstSyncEndedAt.set(id, endedAt);
  }

  diff(step: Extract<Step, { kind: 'diff' }>): Promise<void> {
    return diffStep(this.world, this.ledger, step, (run) => this.checkRun(run));
  }

  async push(i: number, step: Extract<Step, { kind: 'push' }>): Promise<void> {
    const { world } = this;
    const table = world.table(step.table, 'webhook');
    if (!table?.webhookUrl) return;
    const fields = world.current.tables.get(table.id)!.fields;
    const keyField = fields.find((field) => field.label === 'K' && field.type === 'text');
    const byKey = step.byKey && keyField !== undefined;
    const keys = Array.from({ length: step.records }, (_, k) => `p${i}-${k}`);
    const lines = keys.map((key, k) => JSON.stringify({ a: step.big && k % 5 === 0 ? 'y'.repeat(300_000) : `a${k}`, n: k, k: key }));
    const file = join(world.harness.dir, `push-${i}.ndjson`);
    await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const journal = join(world.harness.dir, `push-${i}.tds-journal`);
    const args = ['push', file, '--batch-size', String(step.batchSize), '--concurrency', '4', '--json', '--journal', journal];
    if (byKey) args.push('--key', `k=${keyField.id}`, '--table', table.id);
    if (step.budget) await this.budgetFor(table, step.budget);
    await world.must('POST', '/faults', { webhook: step.fault, seed: i });
    // the requests after the faulted one answer `latencyMs` later (slow answers beside a quick failure)
    const faultAt = Number(/@(\d+)$/.exec(step.fault)?.[1] ?? 0);
    if (faultAt > 0 && step.latencyMs > 0) await world.must('POST', '/hold', { after: faultAt + 1, ms: step.latencyMs });
    const logFrom = world.emu.requestLog.length;
    let run: ClientRun;
    try {
      run = await runClient(world, args, { TDS_WEBHOOK_URL: table.webhookUrl });
    } finally {
      await world.must('POST', '/faults', { webhook: '' });
      await world.must('DELETE', '/hold');
      if (step.budget) {
        await world.must('POST', '/limits', { webhookBudget: null });
        await runClient(world, ['config', 'set', 'webhook-budget', 'off']);
      }
    }
    this.checkRun(run);
    const posts = world.emu.requestLog.slice(logFrom).filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
    const t0 = posts[0]?.at ?? 0;
    this.log(
      `  push: exit ${run.code}; posts ${posts.map((entry) => `${Math.round(entry.at - t0)}+${Math.round(entry.durationMs)}:${entry.status}${entry.fault ? `(${entry.fault})` : ''}`).join(' ')}`,
    );
    if (!byKey) {
      const late = await startedAfterUncertain(journal);
      this.ledger.check(late.length === 0, 7, () => `a plain push started batches ${late.join(', ')} after it knew of an uncertain answer`);
    }
    await world.must('POST', '/flush');
    const snapshot = (await world.snapshot()).get(table.id)!;
    const keyId = fields.find((field) => field.label === 'K')?.id;
    if (!keyId || run.code === null) return;
    const counts = new Map<string, number>();
    for (const row of snapshot.rows.values()) {
      const value = row.values?.[keyId];
      if (typeof value === 'string') counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    const twice = keys.filter((key) => (counts.get(key) ?? 0) > 1);
    this.ledger.check(
      twice.length === 0,
      7,
      () => `${twice.length} pushed records are in the table more than once (${twice.slice(0, 3).join(', ')})`,
    );
    if (run.code === 0) {
      const absent = keys.filter((key) => !counts.has(key));
      const budget = step.budget ? ` (a webhook budget of ${step.budget} more submissions)` : '';
      this.ledger.check(
        absent.length === 0,
        7,
        () => `the push exited 0 and ${absent.length} of its records are not in the table${budget} (${absent.slice(0, 3).join(', ')})`,
      );
    }
  }

  /**
   * A push against a webhook with `more` submissions left: the emulator drops what comes past it (answering
   * success, as production does), and tds's `webhook-budget` is set so that its ledger leaves it the same.
   */
  private async budgetFor(table: SimTable, more: number): Promise<void> {
    const { world } = this;
    const taken = await world.must<{ webhooks: Array<{ webhookUrl: string; submissions: number }> }>('GET', `/tables/${table.id}/webhooks`);
    const submitted = taken.webhooks.find((webhook) => webhook.webhookUrl === table.webhookUrl)?.submissions ?? 0;
    await world.must('POST', '/limits', { webhookBudget: submitted + more });
    const listed = await runClient(world, ['webhooks', '--json']);
    const fingerprint = createHash('sha256').update(table.webhookUrl!).digest('hex').slice(0, 16);
    const known =
      listed.code === 0
        ? (JSON.parse(listed.stdout || '[]') as Array<{ fingerprint: string; submissions: number; uncertain: number }>)
        : [];
    const mine = known.find((entry) => entry.fingerprint === fingerprint);
    const counted = mine ? mine.submissions + mine.uncertain : 0;
    await runClient(world, ['config', 'set', 'webhook-budget', String(counted + more)]);
  }

  async read(step: Extract<Step, { kind: 'read' }>): Promise<void> {
    const { world } = this;
    const synced = step.what === 'syncedStats';
    // stats that syncs first names a table the service has
    const mirrored = (await mirroredTables(world)).filter((table) => !synced || world.current.tables.has(table.tableId));
    if (mirrored.length === 0) return;
    const target = world.inSimOrder(mirrored)[step.table % mirrored.length]!;
    const args =
      step.what === 'sql'
        ? ['sql', `SELECT count(*) AS n FROM ${ident(target.mirrorTable)}`, '--format', 'json']
        : ['stats', target.tableId, ...(synced ? [] : ['--no-sync']), '--format', 'json'];
    // stats measures staleness on the service's clock when it syncs first, else on this machine's
    const clock = async (): Promise<number> => (synced ? Date.parse(await world.now()) : Date.now());
    const from = await clock();
    const run = await runClient(world, args);
    const span = { from, to: await clock() };
    if (synced) this.lake.outOfDate([target.tableId]);
    this.checkRun(run);
    this.ledger.check(run.code === 0, 8, () => `tds ${run.args.join(' ')} exited ${run.code}: ${lastLines(run.stderr)}`);
    if (run.code !== 0 || step.what === 'sql') return;
    const { table } = JSON.parse(run.stdout) as { table: { id: string; stale?: boolean } };
    await judgeStale(world, this.ledger, `tds ${args.join(' ')}`, [{ tableId: table.id, stale: table.stale }], span);
  }

  /**
   * After the service's clock moved: stats (synced first) of the first table a follower recorded a bound for,
   * so a follower, a move of the clock and a reader of staleness meet in most histories that have the first two.
   */
  async statsAfterClock(): Promise<void> {
    const { world } = this;
    if (!existsSync(world.harness.db)) return;
    const recorded = await verifications(world);
    const tables = world.inSimOrder(await mirroredTables(world)).filter((table) => world.current.tables.has(table.tableId));
    const bounded = tables.findIndex((table) => (recorded.get(table.tableId)?.maxStaleMs ?? null) !== null);
    if (bounded >= 0) await this.read({ kind: 'read', table: bounded, what: 'syncedStats' });
  }

  /** Invariant 8 of one command: no unexpected failure, no stack trace, no process past its step. */
  checkRun(run: ClientRun): void {
    const odd = unexpectedOutput(run.stderr);
    this.ledger.check(odd === undefined, 8, () => `tds ${run.args.join(' ')} (exit ${run.code}): ${odd}`);
    this.ledger.check(!run.outlived, 8, () => `tds ${run.args.join(' ')} outlived its step`);
    this.ledger.check(run.code !== 1 || run.killed, 8, () => `tds ${run.args.join(' ')} exited 1: ${lastLines(run.stderr)}`);
  }
}

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runClient, spawnClient, type ClientRun } from './client.js';
import type { Step } from './history.js';
import { changesBetween, setsDiffer, unexpectedOutput, versionsDiffer, versionsOfSnapshot, type Ledger } from './invariants.js';
import { ident, mirroredTables, mirrorVersions, query, type MirroredTable } from './mirror-view.js';
import type { World } from './world.js';

// The client's steps of a history: the real tds (sync in its modes, with kills, faults and --changes;
// diff; push; readers), each followed by the invariants it can break.

/**
 * How much later than the answer of a 5xx the emulator may log a request the client sent before it had read
 * that answer (client and emulator share this process's event loop): a request later still was started after it.
 */
const ANSWER_JITTER_MS = 20;

interface SyncSummaryTable {
  tableId: string;
  mirrorTable: string;
  syncId: number;
  mode: string;
  complete: boolean;
}

export class ClientSteps {
  constructor(
    private readonly world: World,
    private readonly ledger: Ledger,
    private readonly log: (line: string) => void,
    /** the temporary folder of the processes it starts, empty after each step */
    private readonly tmp: string,
  ) {}

  async sync(i: number, step: Extract<Step, { kind: 'sync' }>): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    // no table named and none in the mirror yet: the first live table
    const numbers = step.tables.length === 0 && mirrored.length === 0 ? [0] : step.tables;
    const named = [...new Set(numbers.map((n) => world.table(n)).filter((table) => table !== undefined))];
    if (named.length === 0 && mirrored.length === 0) return;
    const touched = named.length > 0 ? named.map((table) => table.id) : mirrored.map((table) => table.tableId);
    const startedAt = await world.now();
    for (const id of touched) if (!this.ledger.firstSyncAt.has(id)) this.ledger.firstSyncAt.set(id, startedAt);
    if (step.changes) await this.beginChanges(touched, mirrored);

    const args = ['sync', ...named.map((table) => table.id), '--json'];
    if (step.mode === 'full') args.push('--full');
    if (step.mode === 'maxStale') args.push('--max-stale', '1h');
    if (step.changes) args.push('--changes');
    if (step.fault) await world.must('POST', '/faults', { reads: step.fault, seed: i });
    let run: ClientRun;
    try {
      if (step.mode === 'follow') {
        args.splice(args.indexOf('--json'), 1);
        run = await spawnClient(world, [...args, '--follow', '--every', '1'], step.kill ?? { at: 12, signal: 'SIGTERM' }, {
          TMPDIR: this.tmp,
        });
      } else if (step.kill) {
        run = await spawnClient(world, args, step.kill, { TMPDIR: this.tmp });
      } else run = await runClient(world, args);
    } finally {
      if (step.fault) await world.must('POST', '/faults', { reads: '' });
    }
    this.checkRun(run);
    if (step.changes) this.ledger.replay.apply(run.stdout);
    const interrupted = run.killed || step.mode === 'follow';
    if (run.code !== 0 && !interrupted)
      await this.checkNotWedged(
        run,
        named.map((table) => table.id),
      );
    if (run.code !== 0 || step.mode === 'follow' || !run.stdout.trim()) return;

    const summaries = parseSyncSummary(run.stdout, step.changes);
    const now = await mirroredTables(world);
    const versions = await mirrorVersions(world, now);
    const oracle = world.current.tables;
    for (const summary of summaries) {
      const snapshot = oracle.get(summary.tableId);
      const mirror = versions.get(summary.tableId);
      if (!snapshot || !mirror) continue;
      const expected = versionsOfSnapshot(snapshot);
      if (summary.mode === 'full' && summary.complete) {
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
  }

  /** Before a --changes sync: a table whose stream begins now starts from the mirror as it is. */
  async beginChanges(tableIds: readonly string[], mirrored: readonly MirroredTable[]): Promise<void> {
    const known = new Set<string>();
    if (mirrored.length > 0) {
      const has = await query(this.world, "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '_tds_changes'");
      if (Number(has[0]?.n) > 0)
        for (const row of await query(this.world, 'SELECT table_id FROM _tds_changes')) known.add(String(row.table_id));
    }
    const fresh = tableIds.filter((id) => !known.has(id));
    const bases = await mirrorVersions(
      this.world,
      mirrored.filter((table) => fresh.includes(table.tableId)),
    );
    for (const id of fresh) this.ledger.replay.begin(id, bases.get(id) ?? new Map());
  }

  /** A command that failed is run again as a plain sync of the same tables: failing again, the mirror is wedged. */
  async checkNotWedged(first: ClientRun, tableIds: string[]): Promise<void> {
    const again = await runClient(this.world, ['sync', ...tableIds]);
    this.checkRun(again);
    this.ledger.check(
      again.code === 0 || again.code !== first.code,
      8,
      () =>
        `wedged: \`tds ${first.args.join(' ')}\` exited ${first.code}, and a plain sync again ${again.code}: ${lastLines(again.stderr)}`,
    );
  }

  async diff(step: Extract<Step, { kind: 'diff' }>): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    if (mirrored.length === 0) return;
    const target = world.inSimOrder(mirrored)[step.table % mirrored.length]!;
    const count = world.moments.length;
    const since = step.since % count;
    // the end of the span: a moment the mirror was exact at, where there is one after `since`
    const exactAfter = Array.from({ length: count - since }, (_, k) => since + k).filter((moment) =>
      this.ledger.exact.get(moment)?.has(target.tableId),
    );
    const until = exactAfter.length > 0 ? exactAfter[step.until % exactAfter.length]! : since + (step.until % (count - since));
    const [a, b] = [world.moments[since]!, world.moments[until]!];
    const run = await runClient(world, ['diff', target.tableId, '--since', a.at, '--until', b.at, '--format', 'ndjson']);
    this.checkRun(run);
    const first = this.ledger.firstSyncAt.get(target.tableId);
    const beforeFirst = first !== undefined && Date.parse(a.at) < Date.parse(first);
    const exactAt = (moment: number): boolean => this.ledger.exact.get(moment)?.has(target.tableId) === true;
    const judged = (beforeFirst || exactAt(since)) && exactAt(until) && a.tables.has(target.tableId) && b.tables.has(target.tableId);
    if (!judged) return;
    if (run.code === 2 && beforeFirst) return;
    this.ledger.check(
      run.code === 0,
      5,
      () => `tds diff ${target.mirrorTable} --since ${a.at} --until ${b.at} exited ${run.code}: ${lastLines(run.stderr)}`,
    );
    const ambiguous = (id: string): boolean => world.ambiguousAt(id, a.at) || world.ambiguousAt(id, b.at);
    const keep = (row: { id: string }): boolean => !ambiguous(row.id);
    const expected = changesBetween(
      versionsOfSnapshot(a.tables.get(target.tableId)!, keep),
      versionsOfSnapshot(b.tables.get(target.tableId)!, keep),
    );
    const actual = new Set(
      run.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { change: string; _id: string })
        .filter((record) => !ambiguous(record._id))
        .map((record) => `${record.change}:${record._id}`),
    );
    const differs = setsDiffer(expected, actual);
    const where = beforeFirst ? ' (a moment before the first sync, which the mirror did not see)' : '';
    this.ledger.check(
      differs === '',
      5,
      () => `tds diff ${target.mirrorTable} --since step ${a.step}${where} --until step ${b.step}: ${differs}`,
    );
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
    const args = ['push', file, '--batch-size', String(step.batchSize), '--concurrency', '4', '--json'];
    if (byKey) args.push('--key', `k=${keyField.id}`, '--table', table.id);
    await world.must('POST', '/faults', { webhook: step.fault, seed: i });
    // the requests after the faulted one answer `latencyMs` later (slow answers beside a quick failure)
    const faultAt = Number(/@(\d+)$/.exec(step.fault)?.[1] ?? 0);
    if (faultAt > 0 && step.latencyMs > 0) await world.must('POST', '/hold', { after: faultAt + 1, ms: step.latencyMs });
    const logFrom = world.harness.emu.requestLog.length;
    let run: ClientRun;
    try {
      run = await runClient(world, args, { TDS_WEBHOOK_URL: table.webhookUrl });
    } finally {
      await world.must('POST', '/faults', { webhook: '' });
      await world.must('DELETE', '/hold');
    }
    this.checkRun(run);
    const posts = world.harness.emu.requestLog.slice(logFrom).filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
    const t0 = posts[0]?.at ?? 0;
    this.log(
      `  push: exit ${run.code}; posts ${posts.map((entry) => `${Math.round(entry.at - t0)}+${Math.round(entry.durationMs)}:${entry.status}${entry.fault ? `(${entry.fault})` : ''}`).join(' ')}`,
    );
    if (!byKey) {
      const failed = posts.find((entry) => entry.status >= 500 || ['500', '503', 'reset'].includes(entry.fault ?? ''));
      if (failed) {
        const answeredAt = failed.at + failed.durationMs;
        const later = posts.filter((entry) => entry.at > answeredAt + ANSWER_JITTER_MS);
        this.ledger.check(
          later.length === 0,
          7,
          () =>
            `a plain push started ${later.length} batches after a ${failed.status || failed.fault} was answered (the first ${Math.round(later[0]!.at - answeredAt)} ms after it)`,
        );
      }
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
      this.ledger.check(
        absent.length === 0,
        7,
        () => `the push exited 0 and ${absent.length} of its records are not in the table (${absent.slice(0, 3).join(', ')})`,
      );
    }
  }

  async read(step: Extract<Step, { kind: 'read' }>): Promise<void> {
    const mirrored = await mirroredTables(this.world);
    if (mirrored.length === 0) return;
    const target = this.world.inSimOrder(mirrored)[step.table % mirrored.length]!;
    const run =
      step.what === 'sql'
        ? await runClient(this.world, ['sql', `SELECT count(*) AS n FROM ${ident(target.mirrorTable)}`, '--format', 'json'])
        : await runClient(this.world, ['stats', target.tableId, '--no-sync', '--format', 'json']);
    this.checkRun(run);
    this.ledger.check(run.code === 0, 8, () => `tds ${run.args.join(' ')} exited ${run.code}: ${lastLines(run.stderr)}`);
  }

  /** Invariant 8 of one command: no unexpected failure, no stack trace, no process past its step. */
  checkRun(run: ClientRun): void {
    const odd = unexpectedOutput(run.stderr);
    this.ledger.check(odd === undefined, 8, () => `tds ${run.args.join(' ')} (exit ${run.code}): ${odd}`);
    this.ledger.check(!run.outlived, 8, () => `tds ${run.args.join(' ')} outlived its step`);
    this.ledger.check(run.code !== 1 || run.killed, 8, () => `tds ${run.args.join(' ')} exited 1: ${lastLines(run.stderr)}`);
  }
}

/** The tables of `tds sync --json` (with --changes, the summary is on stderr and the tables from the mirror are read instead). */
function parseSyncSummary(stdout: string, changes: boolean): SyncSummaryTable[] {
  const lines = stdout.split('\n').filter(Boolean);
  const summary = changes ? lines.find((line) => line.startsWith('{"db"')) : lines.at(-1);
  if (!summary) return [];
  return (JSON.parse(summary) as { tables: SyncSummaryTable[] }).tables;
}

export const lastLines = (text: string): string => text.trim().split('\n').slice(-3).join(' | ');

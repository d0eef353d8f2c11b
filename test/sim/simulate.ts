import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runClient, spawnClient, type ClientRun } from './client.js';
import { describeStep, LABELS, type History, type Step } from './history.js';
import {
  ChangesReplay,
  changesBetween,
  setsDiffer,
  unexpectedOutput,
  versionsDiffer,
  versionsOfSnapshot,
  Violation,
} from './invariants.js';
import { ident, mirroredTables, mirrorVersions, query, versionsOf, type MirroredTable, type Versions } from './mirror-view.js';
import { World, type Moment, type OracleField, type SimTable } from './world.js';

// One history run against a fresh world: each step, then the invariants. The first broken promise ends
// the run as a Violation naming the step; a clean run counts its steps and invariant checks.

export interface RunOutcome {
  steps: number;
  checks: number;
  violation?: { step: number; invariant: number; detail: string };
}

/** A sync the mirror recorded and the simulator saw end well: what the mirror held after it. */
interface KnownSync {
  syncId: number;
  tableId: string;
  mirrorAfter: Versions;
  /** the moment after it, and whether the mirror then equalled the oracle */
  moment: number;
  exact: boolean;
}

interface SyncSummaryTable {
  tableId: string;
  mirrorTable: string;
  syncId: number;
  mode: string;
  complete: boolean;
}

/** Runs a history; never throws for a broken promise (it is the outcome), only for a fault of the simulator itself. */
export async function runHistory(history: History, log: (line: string) => void = () => undefined): Promise<RunOutcome> {
  const world = await World.open();
  const sim = new Simulation(world, log);
  try {
    return await sim.run(history.steps);
  } finally {
    await world.close();
  }
}

class Simulation {
  private checks = 0;
  private readonly syncs: KnownSync[] = [];
  /** the service's clock when the first sync that could touch each table began */
  private readonly firstSyncAt = new Map<string, string>();
  /** per moment (index), the tables whose mirror equalled the oracle then */
  private readonly exact = new Map<number, Set<string>>();
  private readonly replay = new ChangesReplay();
  private tableSerial = 0;
  private readonly tmp: string;

  constructor(
    private readonly world: World,
    private readonly log: (line: string) => void,
  ) {
    this.tmp = join(world.harness.dir, 'tmp');
  }

  async run(steps: readonly Step[]): Promise<RunOutcome> {
    await mkdir(this.tmp, { mode: 0o700 });
    await this.world.record(-1);
    this.exact.set(0, new Set());
    for (const [i, step] of steps.entries()) {
      const started = Date.now();
      try {
        await this.step(i, step);
        this.log(`step ${i}: ${describeStep(step)} (${Date.now() - started} ms)`);
        await this.world.must('POST', '/flush');
        await this.world.record(i);
        await this.afterEveryStep();
      } catch (error) {
        if (error instanceof Violation) {
          this.log(`step ${i}: ${error.message}`);
          return { steps: i + 1, checks: this.checks, violation: { step: i, invariant: error.invariant, detail: error.detail } };
        }
        throw error;
      }
    }
    return { steps: steps.length, checks: this.checks };
  }

  private check(holds: boolean, invariant: Violation['invariant'], detail: () => string): void {
    this.checks += 1;
    if (!holds) throw new Violation(invariant, detail());
  }

  private async step(i: number, step: Step): Promise<void> {
    const { world } = this;
    switch (step.kind) {
      case 'addTable':
        return this.addTable(step.table, step.rows);
      case 'addRows': {
        const table = world.table(step.table);
        if (!table) return;
        const now = Date.parse(await world.now());
        const rows = Array.from({ length: step.count }, (_, k) => ({
          cells: this.cells(table, i * 10_000 + k),
          ...(step.old ? { createdAt: new Date(now - 86_400_000 * 3 - k * 60_000).toISOString() } : {}),
        }));
        await this.addRowsTo(table, rows);
        return;
      }
      case 'editRows':
      case 'deleteRows':
      case 'rerun': {
        const table = world.table(step.table);
        const rows = table ? [...world.current.tables.get(table.id)!.rows.keys()] : [];
        if (!table || rows.length === 0) return;
        const picked = Array.from({ length: Math.min(step.count, rows.length) }, (_, k) => rows[(step.at + k * 37) % rows.length]!);
        const ids = [...new Set(picked)];
        if (step.kind === 'deleteRows') await world.must('POST', `/tables/${table.id}/rows/delete`, { ids });
        else if (step.kind === 'rerun') await world.admin('POST', `/tables/${table.id}/actions/rerun`, { rows: ids });
        else for (const id of ids) await world.admin('PATCH', `/tables/${table.id}/rows/${id}`, { cells: this.editCells(table, i) });
        return;
      }
      case 'finishActions':
        await world.must('POST', '/actions/finish');
        return;
      case 'addField': {
        const table = world.table(step.table);
        if (table) await world.admin('POST', `/tables/${table.id}/fields`, this.fieldSpec(LABELS[step.label]!, step.type));
        return;
      }
      case 'removeField':
      case 'retypeField':
      case 'relabelField': {
        const table = world.table(step.table);
        const fields = table ? world.current.tables.get(table.id)!.fields.filter((field) => field.type !== 'webhook') : [];
        const field = fields[step.field % Math.max(1, fields.length)];
        if (!table || !field) return;
        const path = `/tables/${table.id}/fields/${field.id}`;
        if (step.kind === 'removeField') await world.admin('DELETE', path);
        else if (step.kind === 'retypeField') await world.admin('PATCH', path, { type: step.type, ...this.optionsOf(step.type) });
        else await world.admin('PATCH', path, { label: LABELS[step.label] });
        return;
      }
      case 'moveClock':
        await world.must('POST', '/clock', { advanceMs: step.hours * 3_600_000 });
        return;
      case 'webhookRows': {
        const table = world.table(step.table, 'webhook');
        if (!table?.webhookUrl) return;
        const objects = Array.from({ length: step.count }, (_, k) => ({ a: `w${i}-${k}`, n: k, k: `w${i}-${k}` }));
        await fetch(table.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(objects) });
        return;
      }
      case 'flushIntake':
        return;
      case 'sync':
        return this.sync(i, step);
      case 'diff':
        return this.diff(step);
      case 'push':
        return this.push(i, step);
      case 'read':
        return this.read(step);
    }
  }

  // --- the world's steps

  private async addTable(kind: SimTable['kind'], rows: number): Promise<void> {
    this.tableSerial += 1;
    const name = `Sim ${this.tableSerial}`;
    const fields =
      kind === 'webhook'
        ? [
            { label: 'A', type: 'text', mapKey: 'a' },
            { label: 'N', type: 'number', mapKey: 'n' },
            { label: 'K', type: 'text', mapKey: 'k' },
          ]
        : [
            { label: 'A', type: 'text' },
            { label: 'N', type: 'number' },
            { label: 'B', type: 'text' },
            ...(kind === 'action' ? [{ label: 'Enrich', type: 'action', action: { from: 'A', derive: 'upper' } }] : []),
          ];
    const created = await this.world.must<{ table: { id: string }; fields: OracleField[]; webhookUrl?: string }>('POST', '/tables', {
      workspace: 'Sales',
      name,
      webhook: kind === 'webhook',
      fields,
    });
    const table: SimTable = { id: created.table.id, name, kind, removed: false, ...(created.webhookUrl ? { webhookUrl: created.webhookUrl } : {}) };
    this.world.tables.push(table);
    if (rows === 0) return;
    const now = Date.parse(await this.world.now());
    // spread over the past weeks, oldest last: the table has a history before the mirror sees it
    const list = Array.from({ length: rows }, (_, k) => ({
      cells: this.cells(table, k, created.fields),
      createdAt: new Date(now - 60_000 - k * 7 * 60_000).toISOString(),
    }));
    await this.addRowsTo(table, list);
  }

  private async addRowsTo(table: SimTable, rows: Array<{ cells: Record<string, unknown>; createdAt?: string }>): Promise<void> {
    for (let from = 0; from < rows.length; from += 5_000) {
      await this.world.must('POST', `/tables/${table.id}/rows`, { rows: rows.slice(from, from + 5_000) });
    }
  }

  /** Cells of a new row by label (the fields of a table may have been retyped or removed: unknown labels left out). */
  private cells(table: SimTable, n: number, given?: readonly OracleField[]): Record<string, unknown> {
    const fields = given ?? this.world.current.tables.get(table.id)?.fields ?? [];
    const all: Record<string, unknown> = { A: `a${n}`, N: n, B: n % 9 === 0 ? 'x'.repeat(250) : `b${n}`, K: `k${n}` };
    const cells: Record<string, unknown> = {};
    for (const [label, value] of Object.entries(all)) {
      const field = fields.find((candidate) => candidate.label === label);
      if (field) cells[field.id] = value;
    }
    return cells;
  }

  private editCells(table: SimTable, step: number): Record<string, unknown> {
    const fields = this.world.current.tables.get(table.id)!.fields;
    const text = fields.find((field) => field.type === 'text' && !field.label.startsWith('_'));
    return text ? { [text.id]: `edited ${step}` } : {};
  }

  private fieldSpec(label: string, type: string): Record<string, unknown> {
    return { label, type, ...this.optionsOf(type) };
  }

  private optionsOf(type: string): Record<string, unknown> {
    return type === 'select'
      ? {
          options: [
            { label: 'New', value: 'new' },
            { label: 'Won', value: 'won' },
          ],
        }
      : {};
  }

  // --- the client's steps

  private async sync(i: number, step: Extract<Step, { kind: 'sync' }>): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    // no table named and none in the mirror yet: the first live table
    const numbers = step.tables.length === 0 && mirrored.length === 0 ? [0] : step.tables;
    const named = [...new Set(numbers.map((n) => world.table(n)).filter((table) => table !== undefined))];
    if (named.length === 0 && mirrored.length === 0) return;
    const touched = named.length > 0 ? named.map((table) => table.id) : mirrored.map((table) => table.tableId);
    const startedAt = await world.now();
    for (const id of touched) if (!this.firstSyncAt.has(id)) this.firstSyncAt.set(id, startedAt);
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
        run = await spawnClient(world, [...args, '--follow', '--every', '1'], step.kill ?? { at: 12, signal: 'SIGTERM' }, { TMPDIR: this.tmp });
      } else if (step.kill) {
        run = await spawnClient(world, args, step.kill, { TMPDIR: this.tmp });
      } else run = await runClient(world, args);
    } finally {
      if (step.fault) await world.must('POST', '/faults', { reads: '' });
    }
    this.checkRun(run);
    if (step.changes) this.replay.apply(run.stdout);
    const interrupted = run.killed || step.mode === 'follow';
    if (run.code !== 0 && !interrupted) await this.checkNotWedged(run, named.map((table) => table.id));
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
        this.check(differs === '', 1, () => `${summary.mirrorTable}: a complete full sync (sync ${summary.syncId}) exited 0 and ${differs}`);
      } else {
        this.check(
          mirror.size === expected.size,
          1,
          () =>
            `${summary.mirrorTable}: sync ${summary.syncId} (${summary.mode}) exited 0 with ${mirror.size} rows in the mirror while the service held ${expected.size} (stderr: ${lastLines(run.stderr)})`,
        );
      }
      this.syncs.push({
        syncId: summary.syncId,
        tableId: summary.tableId,
        mirrorAfter: mirror,
        moment: world.moments.length,
        exact: versionsDiffer(expected, mirror) === '',
      });
    }
    if (step.changes) {
      for (const summary of summaries) {
        const replayed = this.replay.versions(summary.tableId);
        const mirror = versions.get(summary.tableId);
        if (!replayed || !mirror) continue;
        const differs = versionsDiffer(mirror, replayed);
        this.check(differs === '', 3, () => `${summary.mirrorTable}: the --changes records replayed against the mirror: ${differs}`);
      }
    }
  }

  /** Before a --changes sync: a table whose stream begins now starts from the mirror as it is. */
  private async beginChanges(tableIds: readonly string[], mirrored: readonly MirroredTable[]): Promise<void> {
    const known = new Set<string>();
    if (mirrored.length > 0) {
      const has = await query(this.world, "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '_tds_changes'");
      if (Number(has[0]?.n) > 0) for (const row of await query(this.world, 'SELECT table_id FROM _tds_changes')) known.add(String(row.table_id));
    }
    const fresh = tableIds.filter((id) => !known.has(id));
    const bases = await mirrorVersions(
      this.world,
      mirrored.filter((table) => fresh.includes(table.tableId)),
    );
    for (const id of fresh) this.replay.begin(id, bases.get(id) ?? new Map());
  }

  /** A command that failed is run again as a plain sync of the same tables: failing again, the mirror is wedged. */
  private async checkNotWedged(first: ClientRun, tableIds: string[]): Promise<void> {
    const again = await runClient(this.world, ['sync', ...tableIds]);
    this.checkRun(again);
    this.check(
      again.code === 0 || again.code !== first.code,
      8,
      () => `wedged: \`tds ${first.args.join(' ')}\` exited ${first.code}, and a plain sync again ${again.code}: ${lastLines(again.stderr)}`,
    );
  }

  private async diff(step: Extract<Step, { kind: 'diff' }>): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    if (mirrored.length === 0) return;
    const target = mirrored[step.table % mirrored.length]!;
    const count = world.moments.length;
    const since = step.since % count;
    // the end of the span: a moment the mirror was exact at, where there is one after `since`
    const exactAfter = Array.from({ length: count - since }, (_, k) => since + k).filter((moment) => this.exact.get(moment)?.has(target.tableId));
    const until = exactAfter.length > 0 ? exactAfter[step.until % exactAfter.length]! : since + (step.until % (count - since));
    const [a, b] = [world.moments[since]!, world.moments[until]!];
    const run = await runClient(world, ['diff', target.tableId, '--since', a.at, '--until', b.at, '--format', 'ndjson']);
    this.checkRun(run);
    const first = this.firstSyncAt.get(target.tableId);
    const beforeFirst = first !== undefined && Date.parse(a.at) < Date.parse(first);
    const exactAt = (moment: number): boolean => this.exact.get(moment)?.has(target.tableId) === true;
    const judged = (beforeFirst || exactAt(since)) && exactAt(until) && a.tables.has(target.tableId) && b.tables.has(target.tableId);
    if (!judged) return;
    if (run.code === 2 && beforeFirst) return;
    this.check(run.code === 0, 5, () => `tds diff ${target.mirrorTable} --since ${a.at} --until ${b.at} exited ${run.code}: ${lastLines(run.stderr)}`);
    const ambiguous = (id: string): boolean => world.ambiguousAt(id, a.at) || world.ambiguousAt(id, b.at);
    const keep = (row: { id: string }): boolean => !ambiguous(row.id);
    const expected = changesBetween(versionsOfSnapshot(a.tables.get(target.tableId)!, keep), versionsOfSnapshot(b.tables.get(target.tableId)!, keep));
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
    this.check(differs === '', 5, () => `tds diff ${target.mirrorTable} --since step ${a.step}${where} --until step ${b.step}: ${differs}`);
  }

  private async push(i: number, step: Extract<Step, { kind: 'push' }>): Promise<void> {
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
    await world.must('POST', '/faults', { webhook: step.fault, latencyMs: step.latencyMs, seed: i });
    const logFrom = world.harness.emu.requestLog.length;
    let run: ClientRun;
    try {
      run = await runClient(world, args, { TDS_WEBHOOK_URL: table.webhookUrl });
    } finally {
      await world.must('POST', '/faults', { webhook: '', latencyMs: 0 });
    }
    this.checkRun(run);
    const posts = world.harness.emu.requestLog.slice(logFrom).filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
    if (!byKey) {
      const failed = posts.find((entry) => entry.status >= 500 || ['500', '503', 'reset'].includes(entry.fault ?? ''));
      if (failed) {
        const answeredAt = failed.at + failed.durationMs;
        const later = posts.filter((entry) => entry.at > answeredAt + 100);
        this.check(
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
    this.check(twice.length === 0, 7, () => `${twice.length} pushed records are in the table more than once (${twice.slice(0, 3).join(', ')})`);
    if (run.code === 0) {
      const absent = keys.filter((key) => !counts.has(key));
      this.check(absent.length === 0, 7, () => `the push exited 0 and ${absent.length} of its records are not in the table (${absent.slice(0, 3).join(', ')})`);
    }
  }

  private async read(step: Extract<Step, { kind: 'read' }>): Promise<void> {
    const mirrored = await mirroredTables(this.world);
    if (mirrored.length === 0) return;
    const target = mirrored[step.table % mirrored.length]!;
    const run =
      step.what === 'sql'
        ? await runClient(this.world, ['sql', `SELECT count(*) AS n FROM ${ident(target.mirrorTable)}`, '--format', 'json'])
        : await runClient(this.world, ['stats', target.tableId, '--no-sync', '--format', 'json']);
    this.checkRun(run);
    this.check(run.code === 0, 8, () => `tds ${run.args.join(' ')} exited ${run.code}: ${lastLines(run.stderr)}`);
  }

  // --- the invariants every step answers to

  /** Invariant 8 of one command: no unexpected failure, no stack trace, no process past its step. */
  private checkRun(run: ClientRun): void {
    const odd = unexpectedOutput(run.stderr);
    this.check(odd === undefined, 8, () => `tds ${run.args.join(' ')} (exit ${run.code}): ${odd}`);
    this.check(!run.outlived, 8, () => `tds ${run.args.join(' ')} outlived its step`);
    this.check(run.code !== 1 || run.killed, 8, () => `tds ${run.args.join(' ')} exited 1: ${lastLines(run.stderr)}`);
  }

  /** After every step: the moment's exactness, the history of every sync, the files and the temp folder. */
  private async afterEveryStep(): Promise<void> {
    const { world } = this;
    const mirrored = await mirroredTables(world);
    const index = world.moments.length - 1;
    const moment = world.current;
    const versions = await mirrorVersions(world, mirrored);
    const exact = new Set<string>();
    for (const [tableId, mirror] of versions) {
      const snapshot = moment.tables.get(tableId);
      if (snapshot && versionsDiffer(versionsOfSnapshot(snapshot), mirror) === '') exact.add(tableId);
    }
    this.exact.set(index, exact);
    await this.checkHistory(mirrored);
    await this.checkFiles();
  }

  /** Invariant 2: every known sync's T_at_sync(k) is what the mirror held after it; T_at(t) at exact moments is the oracle. */
  private async checkHistory(mirrored: readonly MirroredTable[]): Promise<void> {
    const byId = new Map(mirrored.map((table) => [table.tableId, table]));
    const sources = new Map<string, string>();
    for (const sync of this.syncs) {
      const table = byId.get(sync.tableId);
      if (!table?.atSyncMacro) continue;
      sources.set(`sync ${sync.syncId}`, `${ident(table.atSyncMacro)}(${sync.syncId})`);
      if (sync.exact) sources.set(`at ${sync.syncId}`, `${ident(table.atMacro!)}('${this.world.moments[sync.moment]!.at}'::TIMESTAMPTZ)`);
    }
    const found = await versionsOf(this.world, sources);
    for (const sync of this.syncs) {
      const atSync = found.get(`sync ${sync.syncId}`);
      if (!atSync) continue;
      const differs = versionsDiffer(sync.mirrorAfter, atSync);
      this.check(differs === '', 2, () => `T_at_sync(${sync.syncId}) of ${byId.get(sync.tableId)!.mirrorTable}: ${differs}`);
      const at = found.get(`at ${sync.syncId}`);
      if (!at) continue;
      const moment: Moment = this.world.moments[sync.moment]!;
      const clear = (id: string): boolean => !this.world.ambiguousAt(id, moment.at);
      const expected = versionsOfSnapshot(moment.tables.get(sync.tableId)!, (row) => clear(row.id));
      const fromMirror = new Map([...at].filter(([id]) => clear(id)));
      const atDiffers = versionsDiffer(expected, fromMirror);
      this.check(atDiffers === '', 2, () => `T_at(the moment after sync ${sync.syncId}) of ${byId.get(sync.tableId)!.mirrorTable}: ${atDiffers}`);
    }
  }

  /** Invariant 8 of the files: what tds wrote is 0600 (folders 0700), and the temp folder it was given is empty. */
  private async checkFiles(): Promise<void> {
    const { dir } = this.world.harness;
    const walk = async (folder: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        const mode = (await stat(path)).mode & 0o777;
        if (entry.isDirectory()) {
          this.check(mode === 0o700, 8, () => `folder ${path.slice(dir.length + 1)} has mode ${mode.toString(8)}`);
          await walk(path);
        } else this.check(mode === 0o600, 8, () => `file ${path.slice(dir.length + 1)} has mode ${mode.toString(8)}`);
      }
    };
    if (existsSync(dir)) await walk(dir);
    const left = await readdir(this.tmp);
    this.check(left.length === 0, 8, () => `left in the temp folder: ${left.slice(0, 3).join(', ')}`);
  }
}

/** The tables of `tds sync --json` (with --changes, the summary is on stderr and the tables from the mirror are read instead). */
function parseSyncSummary(stdout: string, changes: boolean): SyncSummaryTable[] {
  const lines = stdout.split('\n').filter(Boolean);
  const summary = changes ? lines.find((line) => line.startsWith('{"db"')) : lines.at(-1);
  if (!summary) return [];
  return (JSON.parse(summary) as { tables: SyncSummaryTable[] }).tables;
}

const lastLines = (text: string): string => text.trim().split('\n').slice(-3).join(' | ');

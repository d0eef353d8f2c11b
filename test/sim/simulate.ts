import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckSteps } from './check-steps.js';
import type { ClientRun } from './client.js';
import { ClientSteps } from './client-steps.js';
import { describeStep, LABELS, type History, type Step } from './history.js';
import { Ledger, versionsDiffer, versionsOfSnapshot, Violation } from './invariants.js';
import { LakeView, pruneHorizons } from './lake-view.js';
import { deletionsPlaced, deletionUnplaced, ident, mirroredTables, mirrorVersions, versionsOf, type MirroredTable } from './mirror-view.js';
import { NotifyReceiver } from './notify-receiver.js';
import { RowIdHistory } from './row-ids.js';
import { World, type Moment, type OracleField, type SimTable } from './world.js';

// One history run against a fresh world: each step, then the invariants. The first broken promise ends
// the run as a Violation naming the step; a clean run counts its steps and invariant checks.

export interface RunOutcome {
  steps: number;
  checks: number;
  violation?: { step: number; invariant: number; detail: string };
}

/** Runs a history; never throws for a broken promise (it is the outcome), only for a fault of the simulator itself. */
export async function runHistory(history: History, log: (line: string) => void = () => undefined): Promise<RunOutcome> {
  const world = await World.open();
  const receiver = await NotifyReceiver.start();
  const sim = new Simulation(world, receiver, log);
  try {
    return await sim.run(history.steps);
  } finally {
    await receiver.close();
    await world.close();
  }
}

class Simulation {
  private readonly ledger = new Ledger();
  private readonly client: ClientSteps;
  private readonly lake: LakeView;
  private readonly checks: CheckSteps;
  private tableSerial = 0;
  private readonly tmp: string;
  private readonly rowIds = new RowIdHistory();

  constructor(
    private readonly world: World,
    receiver: NotifyReceiver,
    private readonly log: (line: string) => void,
  ) {
    this.tmp = join(world.harness.dir, 'tmp');
    const checkRun = (run: ClientRun): void => this.client.checkRun(run);
    this.lake = new LakeView(world, this.ledger, checkRun);
    this.client = new ClientSteps(world, this.ledger, log, this.tmp, this.lake);
    this.checks = new CheckSteps({ world, ledger: this.ledger, lake: this.lake, receiver, checkRun, tmp: this.tmp });
  }

  async run(steps: readonly Step[]): Promise<RunOutcome> {
    await mkdir(this.tmp, { mode: 0o700 });
    await this.world.record(-1);
    this.ledger.exact.set(0, new Set());
    for (const [i, step] of steps.entries()) {
      const started = Date.now();
      try {
        await this.step(i, step);
        this.log(`step ${i}: ${describeStep(step)} (${Date.now() - started} ms)`);
        await this.world.must('POST', '/flush');
        await this.world.record(i);
        await this.checkRowIds(step.kind === 'churn' || step.kind === 'restart');
        await this.afterEveryStep();
      } catch (error) {
        if (error instanceof Violation) {
          this.log(`step ${i}: ${error.message}`);
          return { steps: i + 1, checks: this.ledger.checks, violation: { step: i, invariant: error.invariant, detail: error.detail } };
        }
        throw error;
      }
    }
    return { steps: steps.length, checks: this.ledger.checks };
  }

  private async step(i: number, step: Step): Promise<void> {
    const { world } = this;
    switch (step.kind) {
      case 'addTable':
        return this.addTable(step.table, step.rows);
      case 'removeTable': {
        const table = world.table(step.table);
        if (!table) return;
        await world.must('DELETE', `/tables/${table.id}`);
        table.removed = true;
        return;
      }
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
        const rows = table ? world.rowsInOrder(table.id) : [];
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
        return this.client.statsAfterClock();
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
        return this.client.sync(i, step);
      case 'diff':
        return this.client.diff(step);
      case 'push':
        return this.client.push(i, step);
      case 'read':
        return this.client.read(step);
      case 'compactLake':
        return this.lake.compact();
      case 'check':
        return this.checks.check(i, step);
      case 'churn':
        world.churn(step.ms);
        return;
      case 'restart':
        if (step.churnMs > 0) world.churn(step.churnMs);
        await world.restart();
        if (step.churnMs > 0) world.churn(step.churnMs);
        return;
    }
  }

  /**
   * Invariant 10: the listing of every live table of the world (as the moment just recorded read it), and
   * after churn, which changes every table of the service, the service's other tables too.
   */
  private async checkRowIds(everyTable: boolean): Promise<void> {
    const { world } = this;
    const ours = new Set(world.live().map((table) => table.id));
    for (const id of ours) {
      const broken = this.rowIds.observe(id, world.listed.get(id) ?? []);
      this.ledger.check(broken === '', 10, () => broken);
    }
    if (!everyTable) return;
    for (const id of await world.serviceTableIds()) {
      if (ours.has(id)) continue;
      const broken = this.rowIds.observe(id, await world.listRowIds(id));
      this.ledger.check(broken === '', 10, () => broken);
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
    const table: SimTable = {
      id: created.table.id,
      name,
      kind,
      removed: false,
      ...(created.webhookUrl ? { webhookUrl: created.webhookUrl } : {}),
    };
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
      const added = await this.world.must<{ rows: Array<{ id: string }> }>('POST', `/tables/${table.id}/rows`, {
        rows: rows.slice(from, from + 5_000),
      });
      this.world.noteRows(added.rows.map((row) => row.id));
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
    this.ledger.exact.set(index, exact);
    await this.checkHistory(mirrored);
    await this.checkFiles();
  }

  /** Invariant 2: every known sync's T_at_sync(k) is what the mirror held after it; T_at(t) at exact moments is the oracle. */
  private async checkHistory(mirrored: readonly MirroredTable[]): Promise<void> {
    const byId = new Map(mirrored.map((table) => [table.tableId, table]));
    const horizons = await pruneHorizons(this.world);
    const sources = new Map<string, string>();
    for (const sync of this.ledger.syncs) {
      const table = byId.get(sync.tableId);
      if (!table?.atSyncMacro) continue;
      // before what --prune-history kept, the macros refuse (diff's refusal is judged by invariant 5)
      const horizon = horizons.get(sync.tableId);
      if (horizon && sync.syncId < horizon.fromSync) continue;
      sources.set(`sync ${sync.syncId}`, `${ident(table.atSyncMacro)}(${sync.syncId})`);
      const at = this.world.moments[sync.moment]!.at;
      if (sync.exact && !(horizon && Date.parse(at) < horizon.from)) {
        sources.set(`at ${sync.syncId}`, `${ident(table.atMacro!)}('${at}'::TIMESTAMPTZ)`);
        const deletions = deletionsPlaced(table);
        if (deletions) sources.set(`deleted ${sync.tableId}`, deletions);
      }
    }
    const found = await versionsOf(this.world, sources);
    for (const sync of this.ledger.syncs) {
      const atSync = found.get(`sync ${sync.syncId}`);
      if (!atSync) continue;
      const differs = versionsDiffer(sync.mirrorAfter, atSync);
      this.ledger.check(differs === '', 2, () => `T_at_sync(${sync.syncId}) of ${byId.get(sync.tableId)!.mirrorTable}: ${differs}`);
      const at = found.get(`at ${sync.syncId}`);
      if (!at) continue;
      const moment: Moment = this.world.moments[sync.moment]!;
      const placed = found.get(`deleted ${sync.tableId}`);
      const clear = (id: string): boolean => !this.world.ambiguousAt(id, moment.at) && !deletionUnplaced(placed, id, moment.at);
      const expected = versionsOfSnapshot(moment.tables.get(sync.tableId)!, (row) => clear(row.id));
      const fromMirror = new Map([...at].filter(([id]) => clear(id)));
      const atDiffers = versionsDiffer(expected, fromMirror);
      this.ledger.check(
        atDiffers === '',
        2,
        () => `T_at(the moment after sync ${sync.syncId}) of ${byId.get(sync.tableId)!.mirrorTable}: ${atDiffers}`,
      );
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
          this.ledger.check(mode === 0o700, 8, () => `folder ${path.slice(dir.length + 1)} has mode ${mode.toString(8)}`);
          await walk(path);
        } else this.ledger.check(mode === 0o600, 8, () => `file ${path.slice(dir.length + 1)} has mode ${mode.toString(8)}`);
      }
    };
    if (existsSync(dir)) await walk(dir);
    const left = await readdir(this.tmp);
    this.ledger.check(left.length === 0, 8, () => `left in the temp folder: ${left.slice(0, 3).join(', ')}`);
  }
}

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { adminRoute, makeTempFolder, openHarness, type Harness } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import type { TableKind } from './history.js';

// The world of a simulated run: the emulator in this process (the suite's one fixture), steered through its
// /_emulator/ routes only, and the oracle, which keeps what the service held after every step. The world
// is still between steps: actions wait for a step that finishes them, the webhook's intake shows rows
// when a step flushes it, rate limits are off (the read faults a step sets are the only 429s), and no
// timer of the emulator changes data: churn changes rows only when a step tells it (its draws follow the
// fault seed, as `tds emulator --churn` does). The emulator keeps its state in a data file (--data), and a
// step may restart it from that file, on the same port.

/** A row as the oracle keeps it: its times and its cells' values by field ID. */
export interface OracleRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  values: Record<string, unknown>;
}

export interface OracleField {
  id: string;
  label: string;
  type: string;
}

/** One table as the service held it at a moment. */
export interface TableSnapshot {
  fields: OracleField[];
  rows: Map<string, OracleRow>;
}

/** The world between two steps: the service's clock then, and every live table as it was. */
export interface Moment {
  /** the step after which it was taken (-1: before the first) */
  step: number;
  /** the service's clock (ISO) */
  at: string;
  tables: Map<string, TableSnapshot>;
}

export interface SimTable {
  id: string;
  name: string;
  kind: TableKind;
  webhookUrl?: string;
  removed: boolean;
}

/** What the world starts with: the emulator's options for a history (deterministic where they can be). */
const WORLD_OPTIONS = {
  seed: 'demo' as const,
  seededActions: 'pending' as const,
  rateLimits: false,
  // action cells wait (queued) until a step finishes them; from then on they settle at once
  actionDelayMs: 3_600_000,
  faultSeed: 7,
  churn: 'add:20/s,update:10/s,delete:5/s',
  churnTicks: 'manual' as const,
};

export class World {
  readonly tables: SimTable[] = [];
  readonly moments: Moment[] = [];
  /**
   * Each row's place in the order the world made rows: IDs are random, and rows made in one step share their
   * times, so neither orders them the same way on a replay; this does.
   */
  private readonly ordinals = new Map<string, number>();
  /** each row's creation time and the moment it was first seen at (ms) */
  private readonly firstSeen = new Map<string, { createdAt: number; seenAt: number }>();

  /** Each table's row IDs as the service listed them at the last snapshot (repeats kept). */
  readonly listed = new Map<string, string[]>();
  /** the emulator now: the harness's, or the one a restart started */
  private emulator: RunningEmulator;

  private constructor(
    readonly harness: Harness,
    /** the emulator's options (as the harness started it, with its data file) */
    private readonly options: EmulatorOptions,
    /** the folder of the emulator's data file */
    private readonly dataDir: string,
  ) {
    this.emulator = harness.emu;
  }

  static async open(): Promise<World> {
    const dataDir = await makeTempFolder('sim-data');
    const options: EmulatorOptions = { ...WORLD_OPTIONS, dataFile: join(dataDir, 'emulator.json') };
    try {
      return new World(await openHarness(options), options, dataDir);
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    try {
      await this.emulator.close();
      await this.harness.close();
    } finally {
      await rm(this.dataDir, { recursive: true, force: true });
    }
  }

  /** The emulator in this process now. */
  get emu(): RunningEmulator {
    return this.emulator;
  }

  /**
   * Stops the emulator (which saves its data file) and starts it again from that file on the same port, as
   * `tds emulator --data FILE` restarted: the same address, key and webhook URLs for every client.
   */
  async restart(): Promise<void> {
    const port = Number(new URL(this.harness.baseUrl).port);
    await this.emulator.close();
    // the harness's defaults (emulator-fixture.ts), then the world's
    this.emulator = await startEmulator({ ingestDelayMs: 20, rateScale: RATE_SCALE, ...this.options, port });
  }

  /** Churn's changes over `ms` at its rates, made at once. */
  churn(ms: number): void {
    this.emulator.churnFor(ms);
  }

  /** Every table's ID the service lists (the demo seed's among them), through its key. */
  async serviceTableIds(): Promise<string[]> {
    const response = await fetch(`${this.harness.baseUrl}/tables`, { headers: { authorization: `Bearer ${this.harness.apiKey}` } });
    if (!response.ok) throw new Error(`GET /v1/tables: ${response.status}`);
    return ((await response.json()) as { tables: Array<{ id: string }> }).tables.map((table) => table.id);
  }

  /** A table's row IDs as the service lists them now, repeats kept (the snapshot route reads the table's rows as held). */
  async listRowIds(tableId: string): Promise<string[]> {
    const body = await this.must<{ rows: Array<{ id: string }> }>('GET', `/tables/${tableId}/snapshot`);
    return body.rows.map((row) => row.id);
  }

  /** An /_emulator route: its status and body (a refusal is part of the history, not a failure of the run). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the admin routes' bodies as the steps read them
  async admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return adminRoute<T>(this.harness, method, path, body);
  }

  /** An /_emulator route that must succeed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  async must<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const reply = await this.admin<T>(method, path, body);
    if (reply.status >= 300) throw new Error(`${method} /_emulator${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  }

  /** The live tables (the ones not removed). */
  live(): SimTable[] {
    return this.tables.filter((table) => !table.removed);
  }

  /** The table a step's number names, among the live ones (undefined when none lives). */
  table(n: number, kind?: TableKind): SimTable | undefined {
    const candidates = this.live().filter((table) => kind === undefined || table.kind === kind);
    return candidates.length === 0 ? undefined : candidates[n % candidates.length];
  }

  /** Rows the world just made, in the order it made them. */
  noteRows(ids: readonly string[]): void {
    for (const id of ids) if (!this.ordinals.has(id)) this.ordinals.set(id, this.ordinals.size);
  }

  /** A table's row IDs now, in the order the world made them (rows that showed otherwise: by creation time). */
  rowsInOrder(tableId: string): string[] {
    const rows = [...(this.current.tables.get(tableId)?.rows.values() ?? [])];
    const place = (id: string): number => this.ordinals.get(id) ?? Number.MAX_SAFE_INTEGER;
    return rows
      .sort((a, b) => place(a.id) - place(b.id) || Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : 1))
      .map((row) => row.id);
  }

  /** Tables (anything with a tableId) in the order the world made them. */
  inSimOrder<T extends { tableId: string }>(tables: readonly T[]): T[] {
    const place = (id: string): number => this.tables.findIndex((table) => table.id === id);
    return [...tables].sort((a, b) => place(a.tableId) - place(b.tableId));
  }

  /** The service's clock now (ISO). */
  async now(): Promise<string> {
    return (await this.must<{ now: string }>('GET', '/clock')).now;
  }

  /** The service's tables as they are now. */
  async snapshot(): Promise<Map<string, TableSnapshot>> {
    const tables = new Map<string, TableSnapshot>();
    for (const table of this.live()) {
      const body = await this.must<{ fields: OracleField[]; rows: OracleRow[] }>('GET', `/tables/${table.id}/snapshot`);
      this.listed.set(
        table.id,
        body.rows.map((row) => row.id),
      );
      tables.set(table.id, {
        fields: body.fields.map(({ id, label, type }) => ({ id, label, type })),
        rows: new Map(body.rows.map((row) => [row.id, row])),
      });
    }
    return tables;
  }

  /** Records the world as it is after step `step` (the world is still: no step runs). */
  async record(step: number): Promise<Moment> {
    const tables = await this.snapshot();
    const moment: Moment = { step, at: await this.now(), tables };
    this.moments.push(moment);
    const seenAt = Date.parse(moment.at);
    for (const snapshot of tables.values()) {
      for (const row of snapshot.rows.values()) {
        if (!this.firstSeen.has(row.id)) this.firstSeen.set(row.id, { createdAt: Date.parse(row.createdAt), seenAt });
      }
    }
    return moment;
  }

  /** The last moment recorded. */
  get current(): Moment {
    return this.moments.at(-1)!;
  }

  /**
   * Whether a row's times say otherwise than the oracle at `at` (ISO): it was created before that moment by
   * its creation time, and showed only after it (a row added with an old creation time). The mirror's
   * history places it by its times, as the contract says; the oracle by when it showed.
   */
  ambiguousAt(rowId: string, at: string): boolean {
    const seen = this.firstSeen.get(rowId);
    const moment = Date.parse(at);
    return seen !== undefined && seen.createdAt <= moment && moment < seen.seenAt;
  }
}

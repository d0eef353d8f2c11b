import type { Table, Workspace } from '../../service/index.js';
import type { OrgRec, TableRec, WorkspaceRec } from './model.js';

/** Everything the emulator serves. Tables keep the order they were created in. */
export class EmulatorState {
  readonly orgs: OrgRec[] = [];
  readonly workspaces: WorkspaceRec[] = [];
  readonly tables: TableRec[] = [];
  /**
   * The emulator runs this state has had before this one (0: a fresh seed): saved with --data, one more
   * at each start from the file, so that IDs drawn from a seed in this run differ from every earlier run's.
   */
  run = 0;

  orgByKey(key: string): OrgRec | undefined {
    return this.orgs.find((org) => org.key === key);
  }

  /** A table of another organization is treated as not existing. */
  tableOf(org: OrgRec, tableId: string): TableRec | undefined {
    return this.tables.find((table) => table.id === tableId && table.orgId === org.id);
  }

  tableByWebhookId(webhookId: string): TableRec | undefined {
    return this.tables.find((table) => table.webhookId === webhookId || table.moreWebhookIds?.includes(webhookId));
  }

  listWorkspaces(org: OrgRec): Workspace[] {
    return this.workspaces
      .filter((workspace) => workspace.orgId === org.id)
      .map((workspace) => ({
        id: workspace.id,
        name: workspace.name,
        tableCount: this.tables.filter((table) => table.workspaceId === workspace.id).length,
      }));
  }

  listTables(org: OrgRec, workspaceId?: string): Table[] {
    return this.tables
      .filter((table) => table.orgId === org.id && (workspaceId === undefined || table.workspaceId === workspaceId))
      .map((table) => this.describeTable(table));
  }

  /** A table as GET /tables lists it. */
  describeTable(table: TableRec): Table {
    return {
      id: table.id,
      name: table.name,
      emoji: table.emoji,
      workspaceId: table.workspaceId,
      workspaceName: this.workspaces.find((workspace) => workspace.id === table.workspaceId)?.name ?? '',
      rowCount: table.rows.size,
      fieldCount: table.fields.length,
    };
  }

  /** Every webhook-fed table of every organization: tableId -> webhook id. */
  webhookIds(): Array<[tableId: string, webhookId: string]> {
    return this.tables.flatMap((table) => (table.webhookId ? [[table.id, table.webhookId] as [string, string]] : []));
  }

  /** Every webhook id of a table: its first, then those added later. */
  webhooksOf(table: TableRec): string[] {
    return table.webhookId === undefined ? [] : [table.webhookId, ...(table.moreWebhookIds ?? [])];
  }
}

/**
 * The emulator's clock: the real clock (or the one a test gives) plus an offset that the admin route sets.
 * Row creation times, updatedAt and date presets read it; timers and rate limits keep real time (a test may
 * give the rate limits a clock of its own: EmulatorOptions.rateLimitNow).
 */
export class EmulatorClock {
  constructor(
    private readonly base: () => number,
    private offset = 0,
  ) {}

  readonly now = (): number => this.base() + this.offset;

  /** The clock without the offset: the request log keeps real arrival times. */
  readonly realNow = (): number => this.base();

  get offsetMs(): number {
    return this.offset;
  }

  setOffset(offsetMs: number): void {
    this.offset = offsetMs;
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}

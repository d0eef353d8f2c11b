import type { TableRec } from '../store/model.js';

// The limits a webhook-fed table has in production that docs/service-api.md does not state (issue 45): a
// webhook takes a number of submissions in its lifetime (deleting rows gives none back), and a table holds
// a number of rows. Past either the webhook still answers success, and the objects are dropped silently.
// Off unless the emulator is started with --webhook-budget N or --table-capacity N.

export interface IntakeLimitOptions {
  /** submissions a webhook takes in its lifetime (--webhook-budget) */
  webhookBudget?: number;
  /** rows a table holds (--table-capacity) */
  tableCapacity?: number;
}

/** What one webhook has taken: submissions counted against its budget, and objects dropped (past the budget or the table's capacity). */
export interface WebhookCount {
  submissions: number;
  dropped: number;
}

export class IntakeLimits {
  private readonly counts = new Map<string, WebhookCount>();

  constructor(
    readonly options: IntakeLimitOptions,
    /** rows of the table taken in and not visible yet */
    private readonly heldRows: (tableId: string) => number,
  ) {}

  /** How many of the `count` objects posted to the webhook `webhookId` of `table` become rows: the first ones that fit. */
  admit(webhookId: string, table: TableRec, count: number): number {
    const seen = this.count(webhookId);
    const { webhookBudget, tableCapacity } = this.options;
    const withinBudget = webhookBudget === undefined ? count : Math.min(count, Math.max(0, webhookBudget - seen.submissions));
    const room = tableCapacity === undefined ? Infinity : Math.max(0, tableCapacity - table.rows.size - this.heldRows(table.id));
    const kept = Math.min(withinBudget, room);
    this.counts.set(webhookId, { submissions: seen.submissions + withinBudget, dropped: seen.dropped + count - kept });
    return kept;
  }

  /** New limits from now on (the simulator's budgets: /_emulator/limits); what each webhook took stays counted. */
  set(options: IntakeLimitOptions): void {
    for (const key of ['webhookBudget', 'tableCapacity'] as const) {
      if (key in options) this.options[key] = options[key];
    }
  }

  count(webhookId: string): WebhookCount {
    return this.counts.get(webhookId) ?? { submissions: 0, dropped: 0 };
  }
}

import type { CellStatus, Field } from '../spec/index.js';

// The emulator's own records. What the service shows of them is built in render-row.ts and read-routes.ts.

export interface StoredCell {
  value?: unknown;
  status?: CellStatus | null;
  errorMessage?: unknown;
}

export interface StoredRow {
  id: string;
  createdAt: number; // ms
  updatedAt: number; // ms
  createdByUserId: string | null;
  cells: Record<string, StoredCell>;
}

export interface FieldRec extends Field {
  /** Webhook-fed tables: the key (dotted for nested keys) of the posted object that fills this column. */
  mapKey?: string;
  /** Long cells are served with `valuePreview` only, without `value` (the service may do that). */
  previewOnly?: boolean;
  /** Runs an action or AI: the run-status operators apply whatever the type. */
  runsAction?: boolean;
}

/**
 * The visible rows of a table in two orders: creation (createdAt, then id, ascending) and id (ascending).
 * Newest-first pages walk the first backwards; filtered and searched pages walk the second.
 */
export interface RowSource {
  readonly size: number;
  at(index: number): StoredRow;
  atById(index: number): StoredRow;
}

export interface OrgRec {
  id: string;
  name: string;
  key: string;
  paused: boolean;
}

export interface WorkspaceRec {
  id: string;
  orgId: string;
  name: string;
  isPrivate: boolean;
}

export interface TableRec {
  id: string;
  orgId: string;
  workspaceId: string;
  name: string;
  emoji: string | null;
  fields: FieldRec[];
  rows: RowSource;
  /** The secret last segment of the webhook URL, for webhook-fed tables. */
  webhookId?: string;
}

export function compareCreated(a: Pick<StoredRow, 'createdAt' | 'id'>, b: Pick<StoredRow, 'createdAt' | 'id'>): number {
  return a.createdAt - b.createdAt || compareIds(a.id, b.id);
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

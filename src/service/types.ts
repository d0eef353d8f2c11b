// The service's resources, as service-api.md section 2 states them.

export interface Workspace {
  id: string;
  name: string;
  tableCount: number;
}

export interface Table {
  id: string;
  name: string;
  emoji: string | null;
  workspaceId: string;
  workspaceName: string;
  rowCount: number;
  fieldCount: number;
}

export const COLUMN_TYPES = [
  'text',
  'number',
  'boolean',
  'date',
  'email',
  'phone_number',
  'url',
  'image',
  'select',
  'multi_select',
  'object',
  'formula',
  'action',
  'webhook',
  'member',
  'input',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface FieldOption {
  label: string;
  value: string;
}

export interface Field {
  id: string;
  name: string;
  label: string;
  type: ColumnType;
  options: FieldOption[] | null;
  isSystem: boolean;
}

export const CELL_STATUSES = ['manual', 'success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running'] as const;
export type CellStatus = (typeof CELL_STATUSES)[number];
/** A cell whose action has not finished: it will change without anyone writing to the row. */
export const UNFINISHED_STATUSES = ['queued', 'waiting', 'running'] as const satisfies readonly CellStatus[];

/** All members optional; no other members exist. */
export interface Cell {
  value?: unknown;
  status?: CellStatus | null;
  isTruncated?: boolean;
  valuePreview?: string;
  errorMessage?: unknown;
}

export interface Row {
  id: string;
  tableId: string;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  cells: Record<string, Cell>;
}

export interface WorkspacesResponse {
  workspaces: Workspace[];
  total: number;
}

export interface TablesResponse {
  tables: Table[];
  total: number;
}

export interface SchemaResponse {
  table: { id: string; name: string };
  fields: Field[];
}

export interface RowsPage {
  rows: Row[];
  limit: number;
  nextCursor: string | null;
  hasNextPage: boolean;
}

/** Error body on key endpoints: `error` is always "API Error". On webhook endpoints `error` names the problem. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

export interface WebhookSuccessBody {
  success: boolean;
  message: string;
}

import { z } from 'zod';
import {
  COLUMN_TYPES,
  type ApiErrorBody,
  type Cell,
  type Field,
  type Row,
  type RowsPage,
  type SchemaResponse,
  type Table,
  type TablesResponse,
  type Workspace,
  type WorkspacesResponse,
} from '../service/index.js';

// The response shapes of docs/service-api.md. Members the spec does not name are kept (loose objects), so
// `--format json` writes the service's objects unchanged; a missing or wrong-typed member is an error.

const integer = z.number().int();

export const workspaceSchema: z.ZodType<Workspace> = z.looseObject({
  id: z.string(),
  name: z.string(),
  tableCount: integer,
});

export const tableSchema: z.ZodType<Table> = z.looseObject({
  id: z.string(),
  name: z.string(),
  emoji: z.string().nullable(),
  workspaceId: z.string(),
  workspaceName: z.string(),
  rowCount: integer,
  fieldCount: integer,
});

export const fieldSchema: z.ZodType<Field> = z.looseObject({
  id: z.string(),
  name: z.string(),
  label: z.string(),
  type: z.enum(COLUMN_TYPES),
  options: z.array(z.looseObject({ label: z.string(), value: z.string() })).nullable(),
  isSystem: z.boolean(),
});

// Every member optional (a cut cell may carry only `valuePreview`); `status` is kept as any text so a
// state the spec does not list yet cannot break an export.
const cellSchema = z.looseObject({
  value: z.unknown().optional(),
  status: z.string().nullable().optional(),
  isTruncated: z.boolean().optional(),
  valuePreview: z.string().optional(),
  errorMessage: z.unknown().optional(),
}) as unknown as z.ZodType<Cell>;

export const rowSchema: z.ZodType<Row> = z.looseObject({
  id: z.string(),
  tableId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdByUserId: z.string().nullable(),
  cells: z.record(z.string(), cellSchema),
});

export const workspacesResponseSchema: z.ZodType<WorkspacesResponse> = z.looseObject({
  workspaces: z.array(workspaceSchema),
  total: integer,
});

export const tablesResponseSchema: z.ZodType<TablesResponse> = z.looseObject({
  tables: z.array(tableSchema),
  total: integer,
});

export const schemaResponseSchema: z.ZodType<SchemaResponse> = z.looseObject({
  table: z.looseObject({ id: z.string(), name: z.string() }),
  fields: z.array(fieldSchema),
});

export const rowsPageSchema: z.ZodType<RowsPage> = z.looseObject({
  rows: z.array(rowSchema),
  limit: integer,
  nextCursor: z.string().nullable(),
  hasNextPage: z.boolean(),
});

export const apiErrorBodySchema: z.ZodType<ApiErrorBody> = z.looseObject({
  statusCode: integer,
  error: z.string(),
  message: z.string(),
});

/** `fields[3].type: Invalid option: expected one of …` for the first few problems. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const lines = error.issues.slice(0, max).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const more = error.issues.length - max;
  return more > 0 ? `${lines.join('; ')}; and ${more} more` : lines.join('; ');
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text || '(body)';
}

import { expect } from 'vitest';
import { validateQuery } from '../../../src/filter/validate.js';
import type { ApiClient } from '../../../src/http/client.js';
import { serviceTimings } from '../../../src/http/rate-limiter.js';
import {
  ANY_OF_MAX_ITEMS,
  isFilterGroup,
  type ColumnType,
  type Field,
  type FilterGroup,
  type FilterRule,
  type QueryBody,
  type Row,
  type RowsPage,
  type Table,
} from '../../../src/service/index.js';

// A table behind the two row endpoints the key lookups use (docs/service-api.md 4.4, 4.5): rows newest
// first, filters matched as the service matches them (case-insensitive; containsAnyOf matches parts).

export const TABLE_ID = 'tbl_1';

/** A row created at `createdAt`, holding `cells` (column ID → value). */
export function rowOf(id: string, cells: Record<string, unknown>, createdAt = '2026-01-01T00:00:00.000Z'): Row {
  return {
    id,
    tableId: TABLE_ID,
    createdAt,
    updatedAt: createdAt,
    createdByUserId: null,
    cells: Object.fromEntries(Object.entries(cells).map(([key, value]) => [key, { value }])),
  };
}

export class FakeTable {
  /** every body POSTed to rows/query */
  readonly queries: QueryBody[] = [];
  /** every GET rows request's cursor */
  readonly reads: Array<string | undefined> = [];
  /** the rowCount GET /tables gives (default: the rows held) */
  rowCount?: number;

  /** `rows`: newest first */
  constructor(
    readonly fields: Field[],
    public rows: Row[],
  ) {}

  get client(): ApiClient {
    const api = {
      tables: async (): Promise<{ tables: Table[]; total: number }> => ({ tables: [this.table], total: 1 }),
      timings: serviceTimings(),
      roundTripMs: (): number | undefined => undefined,
      queryPage: async (tableId: string, body: QueryBody): Promise<RowsPage> => {
        expect(tableId).toBe(TABLE_ID);
        expect(() => validateQuery(body, this.fields)).not.toThrow();
        this.queries.push(body);
        const matching = this.rows.filter((row) => !body.filters || this.matches(body.filters, row));
        // with filters, rows come in a stable order by ID
        matching.sort((a, b) => a.id.localeCompare(b.id));
        return page(matching, body.limit ?? 100, body.cursor);
      },
      rowsPage: async (
        tableId: string,
        params: { limit?: number; cursor?: string },
        onBody?: (body: string) => void,
      ): Promise<RowsPage> => {
        expect(tableId).toBe(TABLE_ID);
        this.reads.push(params.cursor);
        const result = page(this.rows, params.limit ?? 100, params.cursor);
        onBody?.(JSON.stringify(result));
        return result;
      },
    };
    return api as unknown as ApiClient;
  }

  get table(): Table {
    return {
      id: TABLE_ID,
      name: 'People',
      emoji: null,
      workspaceId: 'ws',
      workspaceName: 'Main',
      rowCount: this.rowCount ?? this.rows.length,
      fieldCount: this.fields.length,
    };
  }

  private matches(group: FilterGroup, row: Row): boolean {
    const results = group.rules.map((entry) => (isFilterGroup(entry) ? this.matches(entry, row) : this.matchRule(entry, row)));
    return group.combinator === 'or' ? results.some(Boolean) : results.every(Boolean);
  }

  private matchRule(rule: FilterRule, row: Row): boolean {
    const field = this.fields.find((candidate) => candidate.id === rule.fieldId)!;
    const value = row.cells[rule.fieldId]?.value;
    if (value === undefined || value === null) return false;
    const text = String(value).toLowerCase();
    const label = field.options?.find((option) => option.value === String(value))?.label.toLowerCase();
    const texts = label === undefined ? [text] : [text, label];
    switch (rule.operator) {
      case 'in':
        return (rule.value as string[]).some((item) => texts.includes(item.toLowerCase()));
      case 'containsAnyOf':
        return (rule.value as string[]).slice(0, ANY_OF_MAX_ITEMS).some((item) => text.includes(item.toLowerCase()));
      case '=':
        return field.type === 'number' ? Number(value) === Number(rule.value) : text === String(rule.value).toLowerCase();
      default:
        throw new Error(`the fake table does not know ${rule.operator}`);
    }
  }
}

function page(rows: Row[], limit: number, cursor: string | undefined): RowsPage {
  const start = cursor === undefined ? 0 : Number(cursor.slice(1));
  const end = start + limit;
  const more = end < rows.length;
  return { rows: rows.slice(start, end), limit, hasNextPage: more, nextCursor: more ? `c${end}` : null };
}

/** The key column of the fakes: ID `k`, labelled Key. */
export const keyField = (type: ColumnType, options: Field['options'] = null): Field => ({
  id: 'k',
  name: 'key',
  label: 'Key',
  type,
  options,
  isSystem: false,
});

import { keyColumn } from '../../../src/push/key/record-key.js';
import type { KeyLookups } from '../../../src/push/key/key-lookups.js';
import type { Row } from '../../../src/service/index.js';

// A table behind a webhook intake, as the reconciliation of uncertain batches sees it: rows (ours by key,
// others' without) that become visible at set times, with createdAt on a service clock that may run
// ahead of or behind ours. Every rowCount, lookup and newest-row read is logged with its time.

interface FakeRow {
  key?: string;
  /** local ms when it becomes visible (Infinity: never) */
  visibleAt: number;
  /** service clock ms */
  createdAt: number;
}

export interface Lookup {
  at: number;
  keys: string[];
  found: string[];
}

export class FakeIntake {
  readonly rows: FakeRow[] = [];
  readonly lookups: Lookup[] = [];
  readonly rowCounts: number[] = [];
  readonly newestReads: number[] = [];

  /** `clockMs`: how far the service's clock is ahead of ours */
  constructor(
    private readonly before = 0,
    private readonly clockMs = 0,
  ) {}

  /** Rows of ours (by key) that the request arriving at `arrivedAt` (local) carried, visible from `visibleAt`. */
  stored(keys: readonly string[], arrivedAt: number, visibleAt: number): void {
    for (const key of keys) this.rows.push({ key, visibleAt, createdAt: arrivedAt + this.clockMs });
  }

  /** Someone else's row, its request arriving at `arrivedAt`, visible from `visibleAt`. */
  other(arrivedAt: number, visibleAt: number): void {
    this.rows.push({ visibleAt, createdAt: arrivedAt + this.clockMs });
  }

  private visible(): FakeRow[] {
    const now = Date.now();
    return this.rows.filter((row) => row.visibleAt <= now);
  }

  readonly api = {
    column: keyColumn([{ id: 'f1', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false }], 'f1'),
    rowCount: async (): Promise<number> => {
      this.rowCounts.push(Date.now());
      return this.before + this.visible().length;
    },
    reconcile: async (keys: readonly string[]) => {
      const lookup = {
        requests: 1,
        find: async (asked: readonly string[]): Promise<Map<string, Row>> => {
          const at = Date.now();
          const found = new Map<string, Row>();
          for (const row of this.visible()) {
            if (row.key !== undefined && asked.includes(row.key) && !found.has(row.key)) found.set(row.key, rowAt(row));
          }
          this.lookups.push({ at, keys: [...asked], found: [...found.keys()] });
          return found;
        },
      };
      return { plan: { kind: 'queries' as const, requests: 1, text: `${keys.length} keys in one query` }, lookup };
    },
    newestCreatedAt: async (): Promise<number | undefined> => {
      this.newestReads.push(Date.now());
      const times = this.visible().map((row) => row.createdAt);
      return times.length === 0 ? undefined : Math.max(...times);
    },
  };

  get asLookups(): KeyLookups {
    return this.api as unknown as KeyLookups;
  }
}

function rowAt(row: FakeRow): Row {
  const createdAt = new Date(row.createdAt).toISOString();
  return {
    id: `row_${row.key}`,
    tableId: 'tbl',
    createdAt,
    updatedAt: createdAt,
    createdByUserId: null,
    cells: { f1: { value: row.key } },
  };
}

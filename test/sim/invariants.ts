import type { Versions } from './mirror-view.js';
import type { OracleRow, TableSnapshot } from './world.js';

// The promises a simulated run checks after every step (docs/cli.md; the numbers are issue 41's, then 42's), and
// the pure comparisons they rest on.

export const INVARIANTS = {
  1: 'a sync that exits 0 leaves each table it names equal to the service during that sync',
  2: "T_at_sync(k) and T_at(t) equal what the mirror held after sync k (and the oracle's snapshot where the mirror was exact)",
  3: 'replaying every --changes line ever printed (repeats dropped by syncId and _id) yields the mirror',
  4: "the lake read with its README's queries equals the mirror, now and at every sync it holds; tds lake check agrees",
  5: "tds diff A B equals the difference of the oracle's snapshots at A and B, or exits 2 naming the earliest moment",
  6: 'every status change of a check is notified until a receiver takes it, none without a change; a check in error exits 9',
  7: 'every pushed record is in the table exactly once (by key), reported uncertain, or the push exits 7 (a webhook budget); a plain push starts no batch after a 5xx',
  8: 'no unexpected failure, stack trace, hung or wedged command; files 0600, folders 0700',
  // issue 42's findings 6 and 9
  9: 'whatever says a table is stale says it exactly when its verified_at is older than its recorded bound, on the clock it measured on',
  10: 'row IDs are unique for the life of a data file: no listing repeats an ID, no ID of a row gone comes back',
} as const;

export type InvariantId = keyof typeof INVARIANTS;

/** A broken promise: which, and what was seen. */
export class Violation extends Error {
  constructor(
    readonly invariant: InvariantId,
    readonly detail: string,
  ) {
    super(`invariant ${invariant} (${INVARIANTS[invariant]}): ${detail}`);
  }
}

/** A table's rows as versions (ID → updatedAt ms). */
export function versionsOfSnapshot(snapshot: TableSnapshot, keep: (row: OracleRow) => boolean = () => true): Versions {
  const out: Versions = new Map();
  for (const row of snapshot.rows.values()) if (keep(row)) out.set(row.id, Date.parse(row.updatedAt));
  return out;
}

/** How two sets of versions differ, in a few words (empty when they are equal). */
export function versionsDiffer(expected: Versions, actual: Versions, limit = 3): string {
  const missing = [...expected.keys()].filter((id) => !actual.has(id));
  const extra = [...actual.keys()].filter((id) => !expected.has(id));
  const stale = [...expected].filter(([id, at]) => actual.has(id) && actual.get(id) !== at).map(([id]) => id);
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`${missing.length} rows missing (${missing.slice(0, limit).join(', ')})`);
  if (extra.length > 0) parts.push(`${extra.length} rows too many (${extra.slice(0, limit).join(', ')})`);
  if (stale.length > 0) parts.push(`${stale.length} rows in another version (${stale.slice(0, limit).join(', ')})`);
  return parts.length === 0 ? '' : `${parts.join('; ')}; expected ${expected.size} rows, found ${actual.size}`;
}

/** The changes between two states, as `change:_id` (added, updated, deleted). */
export function changesBetween(before: Versions, after: Versions): Set<string> {
  const out = new Set<string>();
  for (const [id, at] of after) {
    if (!before.has(id)) out.add(`added:${id}`);
    else if (before.get(id) !== at) out.add(`updated:${id}`);
  }
  for (const id of before.keys()) if (!after.has(id)) out.add(`deleted:${id}`);
  return out;
}

/** The members of one set the other lacks, both ways, in a few words (empty when equal). */
export function setsDiffer(expected: ReadonlySet<string>, actual: ReadonlySet<string>, limit = 4): string {
  const missing = [...expected].filter((item) => !actual.has(item));
  const extra = [...actual].filter((item) => !expected.has(item));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`${missing.length} expected and absent (${missing.slice(0, limit).join(', ')})`);
  if (extra.length > 0) parts.push(`${extra.length} not expected (${extra.slice(0, limit).join(', ')})`);
  return parts.join('; ');
}

/** What a command printed that no command may: tds's "unexpected failure", or a stack trace. */
export function unexpectedOutput(stderr: string): string | undefined {
  if (/unexpected failure/i.test(stderr)) return stderr.trim().split('\n').slice(0, 3).join(' | ');
  const trace = /^\s+at .+\(.+:\d+:\d+\)$/m.exec(stderr);
  return trace ? `stack trace: ${trace[0].trim()}` : undefined;
}

/** `--changes` records replayed: per table, the versions they give, starting from each table's base. */
export class ChangesReplay {
  private readonly tables = new Map<string, Versions>();
  private readonly seen = new Set<string>();

  /** The mirror's rows when the table's stream began (its first --changes). */
  begin(tableId: string, base: Versions): void {
    this.tables.set(tableId, new Map(base));
    for (const key of [...this.seen]) if (key.startsWith(`${tableId}\n`)) this.seen.delete(key);
  }

  /** The table's stream is no longer known whole (a closed pipe lost records): it begins again at its next --changes. */
  forget(tableId: string): void {
    this.tables.delete(tableId);
  }

  has(tableId: string): boolean {
    return this.tables.has(tableId);
  }

  /** Whole NDJSON lines of a run's stdout (a cut last line is not a record). */
  apply(stdout: string): void {
    const lines = stdout.split('\n');
    lines.pop();
    for (const line of lines) {
      if (line.trim() === '') continue;
      const record = JSON.parse(line) as {
        tableId: string;
        syncId: number;
        change: string;
        _id: string;
        after: Record<string, unknown> | null;
      };
      const versions = this.tables.get(record.tableId);
      const key = `${record.tableId}\n${record.syncId}\n${record._id}`;
      if (!versions || this.seen.has(key)) continue;
      this.seen.add(key);
      if (record.change === 'deleted') versions.delete(record._id);
      else {
        const at = record.after?._updatedAt;
        versions.set(record._id, typeof at === 'string' ? Date.parse(at) : (versions.get(record._id) ?? Number.NaN));
      }
    }
  }

  versions(tableId: string): Versions | undefined {
    return this.tables.get(tableId);
  }
}

/** A sync the mirror recorded and the simulator saw end well: what the mirror held after it. */
export interface KnownSync {
  syncId: number;
  tableId: string;
  mirrorAfter: Versions;
  /** the moment after it (index), and whether the mirror then equalled the oracle */
  moment: number;
  exact: boolean;
}

/** What a run has seen that later invariants compare against, and the count of checks made. */
export class Ledger {
  checks = 0;
  readonly syncs: KnownSync[] = [];
  /** the service's clock when the first sync that could touch each table began */
  readonly firstSyncAt = new Map<string, string>();
  /** the service's clock when the step ended that first completed a sync of each table */
  readonly firstSyncEndedAt = new Map<string, string>();
  /** per moment (index), the tables whose mirror equalled the oracle then */
  readonly exact = new Map<number, Set<string>>();
  readonly replay = new ChangesReplay();

  /** One invariant check: a Violation when it does not hold. */
  check(holds: boolean, invariant: InvariantId, detail: () => string): void {
    this.checks += 1;
    if (!holds) throw new Violation(invariant, detail());
  }
}

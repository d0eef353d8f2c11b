import { PAGE_LIMIT_MAX } from '../../service/index.js';
import type { KeyColumn } from './record-key.js';
import { packKeyQueries } from './key-queries.js';

/** How keys are found in the table, and what that costs in row requests. */
export interface LookupPlan {
  /** `recent`: the rows created since the push began, newest first (only rows this run added are looked for) */
  kind: 'queries' | 'full-read' | 'mirror' | 'recent';
  /** Row requests it should take (the matches' pages counted at their most). */
  requests: number;
  /** For --dry-run and --verbose. */
  text: string;
}

export interface PlanInput {
  column: KeyColumn;
  /** Keys to look up (folded), or a sample of them: `keyCount` is how many there are in all. */
  keys: readonly string[];
  keyCount: number;
  /** The table's rowCount. */
  rowCount: number;
  /** Row requests an incremental sync of the local mirror would take (--db with the table in it). */
  mirrorRequests?: number;
  /** Rows created since the push began, when every key looked for was sent by this run. */
  recentRows?: number;
  /** The share of keys expected to be found (their rows come back in pages of 100); default 1, every one. */
  found?: number;
}

const n = (value: number): string => value.toLocaleString('en-US');
const pages = (rows: number): number => Math.max(1, Math.ceil(rows / PAGE_LIMIT_MAX));
const requests = (count: number): string => `${n(count)} row ${count === 1 ? 'request' : 'requests'}`;

/**
 * The plan with the fewest row requests: filter queries (the keys packed to the limits of
 * docs/service-api.md 4.5; a query's matches come back 100 a page), a read of the whole table (rowCount / 100
 * pages), the local mirror synced first, or the newest rows down to the push's start.
 */
export function chooseLookupPlan(input: PlanInput): LookupPlan {
  const { column, keyCount, rowCount } = input;
  const sampled = packKeyQueries(column, input.keys).length;
  const queries = input.keys.length === 0 ? 0 : Math.ceil((sampled * keyCount) / input.keys.length);
  const found = input.found ?? 1;
  // each query is one request, and one more per further 100 rows it matches
  const matches = Math.min(keyCount, rowCount) * found;
  const queryRequests = queries === 0 ? 0 : queries * Math.max(1, Math.ceil(matches / queries / PAGE_LIMIT_MAX));
  const operator = column.operator === 'in' ? '`in` lists' : column.operator === 'any' ? 'containsAnyOf lists' : '`=` rules';
  const keys = `${n(keyCount)} ${keyCount === 1 ? 'key' : 'keys'}`;
  const plans: LookupPlan[] = [
    {
      kind: 'queries',
      requests: queryRequests,
      text: `${keys} looked up in ${n(queries)} filter ${queries === 1 ? 'query' : 'queries'} (${operator} on "${column.field.label}"), ${found === 1 ? 'up to' : 'about'} ${requests(queryRequests)}`,
    },
    {
      kind: 'full-read',
      requests: pages(rowCount),
      text: `the table's ${n(rowCount)} ${rowCount === 1 ? 'row' : 'rows'} read once (${requests(pages(rowCount))}), ${keys} checked locally`,
    },
  ];
  if (input.mirrorRequests !== undefined) {
    plans.push({
      kind: 'mirror',
      requests: input.mirrorRequests,
      text: `the local mirror synced first (about ${requests(input.mirrorRequests)}), ${keys} checked in it`,
    });
  }
  if (input.recentRows !== undefined) {
    plans.push({
      kind: 'recent',
      requests: pages(input.recentRows),
      text: `the ${n(input.recentRows)} ${input.recentRows === 1 ? 'row' : 'rows'} created since the push began read newest first (${requests(pages(input.recentRows))})`,
    });
  }
  return plans.reduce((best, plan) => (plan.requests < best.requests ? plan : best));
}

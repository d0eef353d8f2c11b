import { FILTER_MAX_ENTRIES_PER_GROUP, isFilterGroup, type Field, type FilterGroup, type FilterRule } from '../service/index.js';
import { placed } from './errors.js';
import { parseFilterJson } from './filter-json.js';
import { parseWhere } from './parser.js';
import { whereToFilter } from './where-to-filter.js';

// --where (each), --any and --filter → the `filters` group of the query body, fieldIds resolved
// and values typed by column. Size limits are left to validateQuery, which sees the whole body.

export interface BuildFiltersInput {
  where: string[];
  /** Join several --where with `or` instead of `and`. */
  any?: boolean;
  /** The text of --filter (the command reads @FILE and - itself). */
  filterJson?: string;
  fields: Field[];
}

type Entry = FilterRule | FilterGroup;

export function buildFilters(input: BuildFiltersInput): FilterGroup | undefined {
  const parts: Entry[] = [];
  if (input.where.length > 0) {
    const entries = input.where.map((expression, index) => {
      const source = input.where.length > 1 ? `--where #${index + 1}` : '--where';
      const expr = placed({ source }, () => parseWhere(expression));
      return whereToFilter(expr, input.fields, { source, expression });
    });
    parts.push(join(input.any ? 'or' : 'and', entries));
  }
  if (input.filterJson !== undefined) parts.push(parseFilterJson(input.filterJson, input.fields));
  if (parts.length === 0) return undefined;
  const top = join('and', parts);
  return top.rules.length === 0 ? undefined : top;
}

/**
 * One group of the entries. Groups with the same combinator (or a single entry) are spliced in,
 * which means the same and saves a nesting level, unless that would make the group larger than
 * the service accepts; a lone group stays as it is.
 */
function join(combinator: 'and' | 'or', entries: Entry[]): FilterGroup {
  const [only] = entries;
  if (entries.length === 1 && only && isFilterGroup(only)) return only;
  const spliced = entries.flatMap((entry) =>
    isFilterGroup(entry) && (entry.rules.length === 1 || (entry.combinator ?? 'and') === combinator) ? entry.rules : [entry],
  );
  const [first] = spliced;
  if (spliced.length === 1 && first && isFilterGroup(first)) return first;
  return { combinator, rules: spliced.length <= FILTER_MAX_ENTRIES_PER_GROUP ? spliced : entries };
}

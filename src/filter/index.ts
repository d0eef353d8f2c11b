// src/filter/: the `--where` language and `--filter` JSON. Its surface is `planFilters` (build.ts: the
// flags to the service's filter group, checked, and the run-state tests made on the rows it returns,
// run-state.ts), `validateQuery` (validate.ts: a query body against the schema), `parseWhere`
// (parser.ts), `FilterError` (errors.ts) and `isCalendarDate` (dates.ts); the lexer, the problems, the
// typing of values and the name lookup serve them.

export { planFilters, type FilterPlan, type LocalFilter } from './build.js';
export { isCalendarDate } from './dates.js';
export { FilterError } from './errors.js';
export { parseWhere } from './parser.js';
export { validateQuery } from './validate.js';

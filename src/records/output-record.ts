/** One row as a record: keys in the plan's order (CLI.md "Row records"), values as they are written.
 * Made without a prototype (Object.create(null)), so that no key reaches one: `__proto__` is a key like any other. */
export type OutputRecord = Record<string, unknown>;

/** One row as a record: keys in the plan's order (CLI.md "Row records"), values as they are written. */
export type OutputRecord = Record<string, unknown>;

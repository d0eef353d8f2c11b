// `--format table` of a query's result (`tds sql`, `tds diff`): rows held for the table up to a bound,
// the rest only counted, so a large result neither fills memory nor a screen.

/** The first `maxRows` records, and how many more there were. */
export async function firstRows<R>(records: AsyncIterable<R>, maxRows: number): Promise<{ rows: R[]; more: number }> {
  const rows: R[] = [];
  let more = 0;
  for await (const record of records) {
    if (rows.length < maxRows) rows.push(record);
    else more += 1;
  }
  return { rows, more };
}

/** A cell of a result table: text as it is, other values as JSON, null empty. */
export function resultCellText(value: unknown): string | null {
  return value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);
}

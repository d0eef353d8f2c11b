// SQL text for identifiers and literals made from data (table names, column keys): always quoted.

/** `"name"`, with double quotes inside doubled: any text is a valid identifier this way. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'`, with single quotes inside doubled. */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `list` (SQL of a VARCHAR[]) with each item that `renames` names replaced by its new text, the others kept. */
export function renameListItems(list: string, renames: ReadonlyArray<readonly [from: string, to: string]>): string {
  const cases = renames.map(([from, to]) => `WHEN ${quoteLiteral(from)} THEN ${quoteLiteral(to)}`).join(' ');
  return `list_transform(${list}, k -> CASE k ${cases} ELSE k END)`;
}

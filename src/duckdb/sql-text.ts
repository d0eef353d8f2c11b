// SQL text for identifiers and literals made from data (table names, column keys): always quoted.

/** `"name"`, with double quotes inside doubled: any text is a valid identifier this way. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'`, with single quotes inside doubled. */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

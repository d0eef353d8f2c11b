/** `🚀 Leads` → `leads`: lower snake case of the letters and digits (accents dropped); `table` when none is left. */
export function snakeName(name: string): string {
  const snake = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return 'table';
  return /^\d/.test(snake) ? `t_${snake}` : snake;
}

/**
 * The mirror table name for a service table: its snake name; when another table has that, the
 * workspace's snake name in front (`sales_contacts`); then `_2`, `_3`, … `taken` holds every name in
 * use (other mirror tables, and any other table of the database).
 */
export function mirrorTableName(table: { name: string; workspaceName: string }, taken: ReadonlySet<string>): string {
  const base = snakeName(table.name);
  if (!taken.has(base)) return base;
  const prefixed = `${snakeName(table.workspaceName)}_${base}`;
  if (!taken.has(prefixed)) return prefixed;
  for (let n = 2; ; n += 1) if (!taken.has(`${prefixed}_${n}`)) return `${prefixed}_${n}`;
}

// Row IDs are unique for the life of a data file (issue 42, finding 9): a listing never holds one ID twice,
// and an ID the world saw go (its row deleted, its table removed) never comes back, in that table or
// another, across restarts of the emulator from its data file. The oracle of it: every ID ever seen.

export class RowIdHistory {
  /** every ID ever seen, and the table it was seen in */
  private readonly seenIn = new Map<string, string>();
  /** each table's IDs at its last listing */
  private readonly shown = new Map<string, Set<string>>();

  /** A table's listing now: what breaks the promise, in a few words ('' when nothing does). */
  observe(tableId: string, ids: readonly string[], limit = 3): string {
    const now = new Set<string>();
    const repeated = new Set<string>();
    for (const id of ids) (now.has(id) ? repeated : now).add(id);
    const before = this.shown.get(tableId) ?? new Set<string>();
    const back: string[] = [];
    const elsewhere: string[] = [];
    for (const id of now) {
      const table = this.seenIn.get(id);
      if (table === undefined) this.seenIn.set(id, tableId);
      else if (table !== tableId) elsewhere.push(`${id} (seen in ${table})`);
      else if (!before.has(id)) back.push(id);
    }
    this.shown.set(tableId, now);
    const parts: string[] = [];
    if (repeated.size > 0) parts.push(`${repeated.size} IDs listed more than once (${[...repeated].slice(0, limit).join(', ')})`);
    if (back.length > 0) parts.push(`${back.length} IDs of rows gone listed again (${back.slice(0, limit).join(', ')})`);
    if (elsewhere.length > 0) parts.push(`${elsewhere.length} IDs of another table's rows (${elsewhere.slice(0, limit).join(', ')})`);
    return parts.length === 0 ? '' : `table ${tableId}: ${parts.join('; ')}`;
  }
}

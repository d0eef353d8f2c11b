import type { SyncProgress } from '../mirror/sync-progress.js';
import type { Table } from '../service/index.js';
import type { ProgressUpdate } from './tool.js';

/** At most one notification this often (a sync writes a group of pages every few hundred ms). */
const EVERY_MS = 250;

/**
 * A sync's progress as MCP progress notifications: the rows read so far in all (which only grow, as
 * the protocol asks of `progress`), and a message naming the table. Notes (schema changes) go to `note`.
 */
export function syncNotifier(tables: readonly Table[], send: (update: ProgressUpdate) => void, note: (text: string) => void): SyncProgress {
  let index = -1;
  let current: Table | undefined;
  let before = 0;
  let tableRows = 0;
  let sent = 0;
  let sentAt = 0;
  const notify = (force: boolean): void => {
    const progress = before + tableRows;
    if (progress <= sent || (!force && Date.now() - sentAt < EVERY_MS)) return;
    sent = progress;
    sentAt = Date.now();
    const rows = tableRows.toLocaleString('en-US');
    send({ progress, message: `table ${index + 1} of ${tables.length}, ${current?.name ?? ''}: ${rows} rows read` });
  };
  return {
    table(table) {
      notify(true);
      before += tableRows;
      tableRows = 0;
      index += 1;
      current = table;
    },
    page(total) {
      tableRows = total;
      notify(false);
    },
    note,
    stop: () => notify(true),
  };
}

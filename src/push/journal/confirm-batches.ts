import { CONFIRMED_REASON, entryOf, type BatchRef } from './journal-entry.js';
import { JournalWriter } from './journal-writer.js';

/** Records uncertain batches the user found in the table (--accept-uncertain) as accepted, when nothing else is sent. */
export async function journalConfirmed(path: string, batches: readonly BatchRef[]): Promise<void> {
  const journal = JournalWriter.reopen(path);
  try {
    for (const batch of batches) await journal.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON }));
  } finally {
    await journal.close();
  }
}

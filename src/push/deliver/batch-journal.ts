import { entryOf, type BatchState, type JournalEntry } from '../journal/journal-entry.js';
import type { Batch } from '../plan/batch.js';

/** What a journal line adds to the batch and its state: the answer's status, a reason, the records kept. */
export type JournalExtra = Parameters<typeof entryOf>[2];

/** Journals a state of a batch (or part); resolves once the line is written. */
export type BatchJournal = (batch: Batch, state: BatchState, extra?: JournalExtra) => Promise<void>;

export function batchJournal(journal: { append(entry: JournalEntry): Promise<void> }): BatchJournal {
  return (batch, state, extra = {}) => journal.append(entryOf(batch, state, extra));
}

// push/journal/: the push journal. Surface: the journal's lines and header (journal-format.ts), JournalWriter
// (journal-writer.ts), where a journal is and when a completed push's goes (journal-folder.ts), and the
// earlier run's journal, read and checked (prior-journal.ts).

export {
  CONFIRMED_REASON,
  entryOf,
  journalHeaderFor,
  type BatchState,
  type JournalContents,
  type JournalEntry,
  type JournalHeader,
} from './journal-format.js';
export { journalConfirmed, JournalWriter } from './journal-writer.js';
export { defaultJournalPath, journalExists } from './journal-folder.js';
export { priorJournal } from './prior-journal.js';

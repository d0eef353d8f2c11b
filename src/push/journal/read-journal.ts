import { readFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { JOURNAL_VERSION, type JournalContents, type JournalEntry, type JournalHeader } from './journal-entry.js';

/** Reads a journal; a torn last line (a crash mid-write) is ignored, any other bad line is an error. */
export async function readJournal(path: string): Promise<JournalContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the journal ${path}${code ? ` (${code})` : ''}`, {
      hint: code === 'ENOENT' ? 'without a journal there is nothing to resume: run without --resume' : undefined,
    });
  }
  const lines = text.split('\n');
  const parsed: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      parsed.push(JSON.parse(line));
    } catch {
      const last = index === lines.length - 1 || lines.slice(index + 1).every((rest) => rest.trim() === '');
      if (!last) throw new UsageError(`the journal ${path} is damaged at line ${index + 1}`);
    }
  });
  const [header, ...entries] = parsed as [JournalHeader | undefined, ...JournalEntry[]];
  if (header?.journal !== 'tds push' || header.version !== JOURNAL_VERSION) {
    throw new UsageError(`${path} is not a tds push journal (version ${JOURNAL_VERSION})`);
  }
  if (!entries.every((entry) => typeof entry?.batch === 'number' && typeof entry.state === 'string')) {
    throw new UsageError(`the journal ${path} has a line that is not a batch record`);
  }
  return { header, entries };
}

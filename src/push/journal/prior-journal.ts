import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { JournalContents, JournalHeader } from './journal-entry.js';
import { headerDifferences } from './journal-header.js';
import { readJournal } from './read-journal.js';

export interface PriorJournalOptions {
  path?: string;
  resume: boolean;
  dryRun: boolean;
}

/**
 * The journal of an earlier run for --resume, checked against the header this run would write
 * (`headerNow`, given the journal's own); refuses a journal that exists when --resume is not given.
 */
export async function priorJournal(
  spec: PriorJournalOptions,
  headerNow: (journaled: JournalHeader) => JournalHeader,
): Promise<JournalContents | undefined> {
  const { path } = spec;
  if (!path) {
    if (spec.resume) throw new UsageError('--resume needs a journal: pass --journal FILE (stdin input has no default journal)');
    return undefined;
  }
  if (!spec.resume) {
    if (spec.dryRun) return undefined;
    if (await reachable(path)) {
      throw new UsageError(`a journal of an earlier push of this input exists: ${path}`, {
        hint: 'add --resume: it sends only what the journal does not record as sent, nothing twice (to send every record again as new rows, remove the journal)',
      });
    }
    if (!(await reachable(dirname(resolve(path)), constants.W_OK))) {
      throw new UsageError(`cannot write the journal ${path}: its folder is missing or not writable`, {
        hint: 'pass --journal FILE in a folder you can write to',
      });
    }
    return undefined;
  }
  const contents = await readJournal(path);
  const problems = headerDifferences(contents.header, headerNow(contents.header));
  if (problems.length > 0) {
    throw new UsageError(`the journal ${path} is of a different push: ${problems.join('; ')}`, {
      hint: 'resume with the same input format, batching options and webhook as the first run',
    });
  }
  return contents;
}

function reachable(path: string, mode = constants.F_OK): Promise<boolean> {
  return access(path, mode).then(
    () => true,
    () => false,
  );
}

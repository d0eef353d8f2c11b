import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../cli/errors.js';
import { readJournal, type JournalContents } from './journal.js';
import { headerDifferences, journalHeaderFor } from './journal-header.js';
import type { PushRunOptions } from './push-run.js';

/** The journal of an earlier run for --resume; refuses a journal that exists when --resume is not given. */
export async function priorJournal(options: PushRunOptions): Promise<JournalContents | undefined> {
  const path = options.journalPath;
  if (!path) {
    if (options.resume) throw new UsageError('--resume needs a journal: pass --journal FILE (stdin input has no default journal)');
    return undefined;
  }
  if (!options.resume) {
    if (options.dryRun) return undefined;
    if (await reachable(path)) {
      throw new UsageError(`a journal of an earlier push of this input exists: ${path}`, {
        hint: 'run with --resume to send only what is left (nothing is sent twice), or remove the journal to push everything again',
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
  const now = journalHeaderFor(
    options,
    options.target ?? { shown: contents.header.webhook.shown, fingerprint: contents.header.webhook.sha256 },
  );
  const problems = headerDifferences(contents.header, now);
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

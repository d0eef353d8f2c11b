import { constants } from 'node:fs';
import { access, readFile, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../core/index.js';
import {
  JOURNAL_VERSION,
  type JournalContents,
  type JournalEntry,
  type JournalHeader,
  headerDifferences,
  isCompletionLine,
} from './journal-format.js';

export interface PriorJournalOptions {
  path?: string;
  resume: boolean;
  dryRun: boolean;
  /** --key: a journal of other batching options cannot be continued, but the table can tell what it holds */
  byKey?: boolean;
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
    // a journal of runs whose every request was refused or turned away (429) records nothing sent: nothing to guard
    if ((await reachable(path)) && !(await recordsNothingSent(path))) {
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
      hint: spec.byKey
        ? 'push with the same input format and batching options as the first run; or remove the journal and add --skip-existing, which leaves out the records whose keys the table holds'
        : 'resume with the same input format, batching options and webhook as the first run',
    });
  }
  return contents;
}

/** Whether the journal says no request of its runs could have been taken in (then it is removed: the next run starts one afresh). */
async function recordsNothingSent(path: string): Promise<boolean> {
  const latest = new Map<string, JournalEntry['state']>();
  for (const entry of (await readJournal(path)).entries) latest.set(`${entry.batch}.${entry.part ?? ''}`, entry.state);
  if (![...latest.values()].every((state) => state === 'unsent')) return false;
  await rm(path);
  return true;
}

function reachable(path: string, mode = constants.F_OK): Promise<boolean> {
  return access(path, mode).then(
    () => true,
    () => false,
  );
}

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
  const complete = parsed.length > 1 && isCompletionLine(parsed[parsed.length - 1]);
  const [header, ...entries] = parsed.filter((line) => !isCompletionLine(line)) as [JournalHeader | undefined, ...JournalEntry[]];
  if (header?.journal !== 'tds push' || header.version !== JOURNAL_VERSION) {
    throw new UsageError(`${path} is not a tds push journal (version ${JOURNAL_VERSION})`);
  }
  if (!entries.every((entry) => typeof entry?.batch === 'number' && typeof entry.state === 'string')) {
    throw new UsageError(`the journal ${path} has a line that is not a batch record`);
  }
  return { header, entries, complete };
}

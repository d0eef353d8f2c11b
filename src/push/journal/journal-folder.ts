import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { tryLock } from '../../core/process-lock.js';
import { JOURNAL_KEEP_DAYS } from '../options.js';
import { isCompletionLine } from './journal-format.js';

// Where a push's journal is when --journal is not given: in tds's data folder (`journals/`), one per input
// and webhook, so that the same command finds it again from any working folder; a journal that earlier
// releases kept beside the input is still found there (and said). A journal whose push completed ends with
// a completion line; such journals go once untouched for JOURNAL_KEEP_DAYS (MCP's push_records keeps its
// journals as long), a journal of a push that did not complete never.

const KEEP_MS = JOURNAL_KEEP_DAYS * 86_400_000;

/** The folder of the journals in tds's data folder (TDS_DATA_DIR, or the platform's: push/ledger's dataDir). */
export const journalFolder = (dataDir: string): string => join(dataDir, 'journals');

/** A push's journal without --journal: where it is, and whether it is one an earlier release left beside the input. */
export interface JournalPlace {
  path: string;
  beside: boolean;
}

/**
 * The journal of a push of the file `input` to the webhook `fingerprint`: the data folder's
 * (`INPUT-NAME.<16 hex of the input's absolute path and the webhook>.tds-journal`), else one an earlier
 * release kept beside the input (`FILE.<8 hex of the webhook>.tds-journal`, or the first release's
 * `FILE.tds-journal` when it is of the same webhook), else the data folder's for a new one.
 */
export async function defaultJournalPath(input: string, fingerprint: string, dataDir: string): Promise<JournalPlace> {
  const own = join(journalFolder(dataDir), `${basename(input)}.${await pushId(input, fingerprint)}.tds-journal`);
  if (await exists(own)) return { path: own, beside: false };
  const besideOwn = `${input}.${fingerprint.slice(0, 8)}.tds-journal`;
  if (await exists(besideOwn)) return { path: besideOwn, beside: true };
  const legacy = `${input}.tds-journal`;
  if ((await webhookOf(legacy)) === fingerprint) return { path: legacy, beside: true };
  return { path: own, beside: false };
}

/** The input file by its real path (the same from any working folder, through any link) and the webhook. */
async function pushId(input: string, fingerprint: string): Promise<string> {
  const file = await realpath(input).catch(() => resolve(input));
  return createHash('sha256')
    .update(JSON.stringify([file, fingerprint]))
    .digest('hex')
    .slice(0, 16);
}

/** Makes the journals' folder (the user's alone: 0700), then removes the journals of completed pushes untouched for JOURNAL_KEEP_DAYS. */
export async function prepareJournalFolder(dataDir: string, now = Date.now()): Promise<void> {
  const folder = journalFolder(dataDir);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await removeCompleted(folder, now);
}

/**
 * Removes the journals of the folder whose push completed (the last line says so) and which nothing has
 * written for JOURNAL_KEEP_DAYS; a journal another push is using (its lock is held) stays.
 */
export async function removeCompleted(folder: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((file) => file.endsWith('.tds-journal'))) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs <= KEEP_MS || !(await endsComplete(path))) continue;
    const lock = await tryLock(path);
    if (!lock) continue;
    try {
      await rm(path, { force: true });
      removed.push(path);
    } finally {
      await lock.release();
    }
  }
  return removed;
}

/** Whether the journal's last line is a completion line (a later run that continued it appends after it). */
export async function endsComplete(path: string): Promise<boolean> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return false;
  try {
    const { size } = await file.stat();
    const tail = Buffer.alloc(Math.min(size, 4096));
    await file.read(tail, 0, tail.length, size - tail.length);
    const last = tail.toString('utf8').trimEnd().split('\n').pop() ?? '';
    return isCompletionLine(JSON.parse(last));
  } catch {
    return false;
  } finally {
    await file.close();
  }
}

/** The webhook fingerprint in a journal's header (its first line), if it can be read. */
async function webhookOf(path: string): Promise<string | undefined> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return undefined;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const line = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const header = JSON.parse(line) as { webhook?: { sha256?: unknown } };
    return typeof header.webhook?.sha256 === 'string' ? header.webhook.sha256 : undefined;
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/** Whether a journal is at `path`. */
export function journalExists(path: string): Promise<boolean> {
  return exists(path);
}

function exists(path: string): Promise<boolean> {
  return access(path, constants.F_OK).then(
    () => true,
    () => false,
  );
}

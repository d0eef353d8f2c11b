import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from '../config/paths.js';
import { PRIVATE_FILE_MODE } from '../core/private-files.js';

/** How long the journal of a push_records call is kept after its last entry: the same call made again within it sends nothing twice. */
export const JOURNAL_KEEP_DAYS = 7;
const KEEP_MS = JOURNAL_KEEP_DAYS * 86_400_000;

/** Where a push_records call keeps its records, its journal and its rejects, all private (0600). */
export interface PushFiles {
  /** the records as NDJSON, the push's input: this call's own, removed by `remove` */
  input: string;
  /** named after what is pushed where: shared by every call of the same push, kept for JOURNAL_KEEP_DAYS */
  journal: string;
  /** each rejected record with the reason (NDJSON): this call's own, removed by `remove` */
  rejects: string;
  /** the journal exists: an earlier call pushed these same records (a resumed push sends only what is left) */
  resume: boolean;
  /** Removes what the call no longer needs once it has answered: its records and rejects (the journal stays). */
  remove(): Promise<void>;
}

/**
 * The files of a push_records call under the config folder's mcp-push/. The journal is named after
 * what is pushed where (the webhook's fingerprint, the table, the key and the records): the same call
 * made again (an agent retrying after a lost answer) finds the journal of the first and sends nothing
 * twice. The records and rejects are the call's own (two calls at once never share a file name) and go
 * when it ends; a journal untouched for JOURNAL_KEEP_DAYS, and whatever a killed server left, go with
 * the next call.
 */
export async function pushFiles(
  env: NodeJS.ProcessEnv,
  push: { webhookFingerprint: string; table: string; key: string; records: readonly unknown[] },
): Promise<PushFiles> {
  const text = `${push.records.map((record) => JSON.stringify(record)).join('\n')}\n`;
  const id = createHash('sha256')
    .update(JSON.stringify([push.webhookFingerprint, push.table, push.key]))
    .update(text)
    .digest('hex')
    .slice(0, 24);
  const folder = join(configDir(env), 'mcp-push');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await removeStale(folder);
  const call = `${id}.${randomBytes(6).toString('hex')}`;
  const input = join(folder, `${call}.ndjson`);
  const journal = join(folder, `${id}.tds-journal`);
  const rejects = join(folder, `${call}.rejects.ndjson`);
  await writeFile(input, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  return {
    input,
    journal,
    rejects,
    resume: Boolean(await stat(journal).catch(() => undefined)),
    remove: async () => {
      for (const path of [input, rejects, `${rejects}.partial`]) await rm(path, { force: true });
    },
  };
}

/** Removes the files of mcp-push/ not written for JOURNAL_KEEP_DAYS. */
async function removeStale(folder: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(folder)) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > KEEP_MS) await rm(path, { force: true });
  }
}

/** The first rejected records of a push, as `record N: reason` lines. */
export async function firstRejects(path: string, count: number): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => {
      const { record, reason } = JSON.parse(line) as { record: number; reason: string };
      return `record ${record}: ${reason}`;
    });
}

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from '../config/paths.js';

/** Where push_records keeps a call's records and its journal. */
export interface PushFiles {
  /** the records as NDJSON, the push's input */
  input: string;
  journal: string;
  /** each rejected record with the reason (NDJSON) */
  rejects: string;
  /** the journal exists: an earlier call pushed these same records (a resumed push sends only what is left) */
  resume: boolean;
}

/**
 * The records of a push_records call as an NDJSON file under the config folder, named after what is
 * pushed where (the webhook's fingerprint, the table, the key and the records), with its journal beside
 * it. The same call made again (an agent retrying after a lost answer) finds the journal of the first
 * and sends nothing twice.
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
  const input = join(folder, `${id}.ndjson`);
  const journal = join(folder, `${id}.tds-journal`);
  if (!(await stat(input).catch(() => undefined))) {
    // whole or not at all: a later call must never find half of these records under their name
    const partial = `${input}.${process.pid}.partial`;
    await writeFile(partial, text, { mode: 0o600 });
    await rename(partial, input);
  }
  return { input, journal, rejects: join(folder, `${id}.rejects.ndjson`), resume: Boolean(await stat(journal).catch(() => undefined)) };
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

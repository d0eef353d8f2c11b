import { open } from 'node:fs/promises';

/**
 * The journal beside a file input when --journal is not given: one per input and webhook
 * (`FILE.<8 hex of the webhook's fingerprint>.tds-journal`), so one file can be pushed to two tables.
 * A journal of the first release (`FILE.tds-journal`) is still used when it is of the same webhook.
 */
export async function defaultJournalPath(input: string, fingerprint: string): Promise<string> {
  const own = `${input}.${fingerprint.slice(0, 8)}.tds-journal`;
  const legacy = `${input}.tds-journal`;
  if (await exists(own)) return own;
  return (await webhookOf(legacy)) === fingerprint ? legacy : own;
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

async function exists(path: string): Promise<boolean> {
  const file = await open(path, 'r').catch(() => undefined);
  await file?.close();
  return file !== undefined;
}

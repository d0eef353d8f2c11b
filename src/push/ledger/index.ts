// push/ledger/: what each webhook has taken in its lifetime (issue 45: a webhook takes a budget of submissions,
// 50,000 by default in production, then drops what it is sent and still answers success). Surface: dataDir
// (tds's data folder), WebhookLedger (this file: a webhook's ledger, its count, and the run that writes to it),
// LedgerCount, countLines (the fold, ledger-count.ts), and listLedgers (every webhook known, for `tds webhooks`).
//
// A webhook's ledger is a folder named after the hash of its URL (never the URL) in the data folder, with one
// file per push that sent to it: the push's journal lines, teed, written and fsynced as the journal's are
// (journal-writer.ts), so a request never leaves unrecorded. A file per run keeps two pushes at once (other
// inputs) from writing into one file; the count is the fold of every file, oldest first.

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import type { JournalEntry } from '../journal/journal-format.js';
import { JournalWriter } from '../journal/journal-writer.js';
import { countLines, type LedgerCount, type LedgerHeader, type LedgerLine } from './ledger-count.js';

export { countLines, type LedgerCount, type LedgerHeader, type LedgerLine } from './ledger-count.js';

/**
 * tds's data folder: TDS_DATA_DIR, else the platform's ($XDG_DATA_HOME/tds or ~/.local/share/tds; macOS
 * ~/Library/Application Support/tds; Windows %LOCALAPPDATA%\tds).
 */
export function dataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.TDS_DATA_DIR) return env.TDS_DATA_DIR;
  if (platform === 'win32') return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'tds');
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'tds');
  const xdg = env.XDG_DATA_HOME && posix.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : posix.join(home, '.local', 'share');
  return posix.join(xdg, 'tds');
}

/** The webhook as the ledger knows it: the hash of its URL, and its URL as displayed (redacted). */
export interface LedgerWebhook {
  fingerprint: string;
  displayUrl: string;
}

const folderOf = (dir: string, fingerprint: string): string => join(dir, 'webhooks', fingerprint.slice(0, 32));

export class WebhookLedger {
  private constructor(
    readonly folder: string,
    private readonly webhook: LedgerWebhook,
  ) {}

  static at(dir: string, webhook: LedgerWebhook): WebhookLedger {
    return new WebhookLedger(folderOf(dir, webhook.fingerprint), webhook);
  }

  /** What the webhook has taken so far, by every push's record. */
  async count(): Promise<LedgerCount> {
    return countLines(await readFolder(this.folder));
  }

  /**
   * The file of one push. `source` names what its batches belong to (the journal, so a later run's
   * reconciling by key refers to an earlier run's request); `table` is shown by `tds webhooks` when known.
   */
  async run(source: string, table?: string): Promise<LedgerRun> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(3).toString('hex')}.ndjson`;
    const header: LedgerHeader = {
      ledger: 'tds webhook',
      version: 1,
      webhook: { shown: this.webhook.displayUrl, sha256: this.webhook.fingerprint },
      ...(table ? { table } : {}),
      createdAt: new Date().toISOString(),
    };
    return new LedgerRun(JournalWriter.create(join(this.folder, name), header), source);
  }
}

/** One push's ledger file: each journal line of the batches sent to this webhook, as the journal writes it. */
export class LedgerRun {
  constructor(
    private readonly writer: JournalWriter,
    private readonly source: string,
  ) {}

  append(entry: JournalEntry): Promise<void> {
    const line: LedgerLine = {
      src: this.source,
      batch: entry.batch,
      ...(entry.part ? { part: entry.part } : {}),
      state: entry.state,
      count: entry.count,
      ...(entry.keep ? { kept: entry.keep.length } : {}),
      ...(entry.why ? { why: entry.why } : {}),
      at: entry.at,
    };
    return this.writer.append(line as unknown as JournalEntry);
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  /** A journal that writes each line to the ledger too; both fsynced before it resolves. */
  tee(journal: { append(entry: JournalEntry): Promise<void> } | undefined): { append(entry: JournalEntry): Promise<void> } {
    return {
      append: async (entry) => {
        await Promise.all([journal?.append(entry), this.append(entry)]);
      },
    };
  }
}

/** A webhook known to the ledger: its header (from its first file) and its count. */
export interface KnownWebhook {
  fingerprint: string;
  displayUrl: string;
  table?: string;
  count: LedgerCount;
}

/** Every webhook the data folder has a ledger of. */
export async function listLedgers(dir: string): Promise<KnownWebhook[]> {
  const root = join(dir, 'webhooks');
  const folders = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const known: KnownWebhook[] = [];
  for (const folder of folders.sort()) {
    const lines = await readFolder(join(root, folder));
    const headers = lines.filter((line): line is LedgerHeader => 'ledger' in line);
    const header = headers[0];
    if (!header) continue;
    const table = headers.findLast((line) => line.table !== undefined)?.table;
    known.push({
      fingerprint: header.webhook.sha256,
      displayUrl: header.webhook.shown,
      ...(table !== undefined ? { table } : {}),
      count: countLines(lines),
    });
  }
  return known;
}

/** Every line of every file of a ledger folder, oldest file first (the names start with their time); a torn last line is left out. */
async function readFolder(folder: string): Promise<Array<LedgerHeader | LedgerLine>> {
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const lines: Array<LedgerHeader | LedgerLine> = [];
  for (const name of names.filter((file) => file.endsWith('.ndjson')).sort()) {
    const text = await readFile(join(folder, name), 'utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        lines.push(JSON.parse(line) as LedgerHeader | LedgerLine);
      } catch {
        // a line torn by a crash mid-write: its request had not left (its line is written before)
      }
    }
  }
  return lines;
}

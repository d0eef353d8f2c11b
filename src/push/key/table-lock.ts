import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryNamedLock, type ProcessLock } from '../../core/index.js';
import type { Table } from '../../service/index.js';
import { sleepUntil } from './intake-window.js';

/** How often a push waiting for the table tries the lock again. */
const RETRY_MS = 200;

export interface TableLockOptions {
  /** the service's base URL: with the table's ID, the lock's name */
  service: string;
  table: Pick<Table, 'id' | 'name'>;
  /** the input, as messages name it */
  input: string;
  /** the longest intake window, as this run waits it */
  windowMs: number;
  signal: AbortSignal;
  /** one message line on stderr */
  say(line: string): void;
  /** the folder of the note on the last push into the table (default: the temporary folder) */
  dir?: string;
}

/** What the push holding the table (or the last one, if it stopped before its rows all showed) tells the next. */
interface Note {
  pid: number;
  input: string;
  since: string;
  state: 'pushing' | 'stopped';
  /** stopped: when its last request ended */
  lastRequestAt?: number;
}

/**
 * One push by key into a table at a time on this machine: two at once would each look the other's
 * keys up before they show, and send the overlap twice. The lock is named after the service and the
 * table (not a file), so pushes from any folder share it, and it dies with its process, as the
 * journal's. A push that finds it taken waits, saying which push holds it. Beside the lock, a note
 * in the temporary folder says who holds it, and stays after a push that stopped (or was killed)
 * before its rows all showed: the next push waits out the webhook's intake window first.
 */
export class TableLock {
  private released = false;

  private constructor(
    private readonly lock: ProcessLock,
    private readonly note: string,
    private readonly mine: Note,
  ) {}

  static async take(options: TableLockOptions): Promise<TableLock> {
    const name = lockName(options.service, options.table.id);
    const path = notePath(options.service, options.table.id, options.dir);
    const table = `table "${options.table.name}" (${options.table.id})`;
    let lock = await tryNamedLock(name);
    if (!lock) options.say(holderText(await readNote(path), table));
    while (!lock) {
      await sleepUntil(Date.now() + RETRY_MS, options.signal);
      lock = await tryNamedLock(name);
    }
    try {
      await waitForLast(await readNote(path), table, options);
      const mine: Note = { pid: process.pid, input: options.input, since: new Date().toISOString(), state: 'pushing' };
      await writeNote(path, mine);
      return new TableLock(lock, path, mine);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Lets the next push go on: `visible` when every row this push took in shows, else when its last request ended. */
  async release(end: { visible: boolean; lastRequestAt?: number }): Promise<void> {
    if (this.released) return;
    this.released = true;
    // rows all visible: nothing for the next push to wait for, no note left behind
    if (end.visible) await rm(this.note, { force: true }).catch(() => undefined);
    else await writeNote(this.note, { ...this.mine, state: 'stopped', ...(end.lastRequestAt ? { lastRequestAt: end.lastRequestAt } : {}) });
    await this.lock.release();
  }
}

function lockName(service: string, tableId: string): string {
  return `tds push --key\n${service}\n${tableId}`;
}

/** Where the note on the last push by key into a table is kept. */
export function notePath(service: string, tableId: string, dir = tmpdir()): string {
  return join(dir, `tds-push-key-${createHash('sha256').update(lockName(service, tableId)).digest('hex').slice(0, 16)}.json`);
}

function holderText(holder: Note | undefined, table: string): string {
  const who = holder?.state === 'pushing' ? `: PID ${holder.pid}, pushing ${holder.input} since ${clock(holder.since)}` : '';
  return `another push by key into ${table} is running${who}; waiting for it to end (two at once could send the same keys twice)`;
}

/** After a push that ended before its rows all showed, its last rows may still come in: they are waited for. */
async function waitForLast(last: Note | undefined, table: string, options: TableLockOptions): Promise<void> {
  if (!last) return;
  const since = last.state === 'stopped' && last.lastRequestAt !== undefined ? last.lastRequestAt : Date.now();
  const ms = since + options.windowMs - Date.now();
  if (ms <= 0) return;
  options.say(
    `the last push by key into ${table} (PID ${last.pid}, ${last.input}) ended before its rows showed; ` +
      `waiting ${Math.ceil(ms / 1000)} s for the webhook to take them in`,
  );
  await sleepUntil(since + options.windowMs, options.signal);
}

async function readNote(path: string): Promise<Note | undefined> {
  try {
    const note = JSON.parse(await readFile(path, 'utf8')) as Partial<Note>;
    return typeof note.pid === 'number' && typeof note.input === 'string' && typeof note.since === 'string' ? (note as Note) : undefined;
  } catch {
    // none yet, or unreadable (another user's): nothing is known of the last push
    return undefined;
  }
}

async function writeNote(path: string, note: Note): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(note)}\n`, { mode: 0o600 });
    await rename(temporary, path);
  } catch {
    // another user's note: the lock still holds, only the note is not kept
  }
}

function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toTimeString().slice(0, 8);
}

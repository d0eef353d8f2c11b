import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** A lock this process holds until release() or its end. */
export interface ProcessLock {
  release(): Promise<void>;
}

/**
 * Takes the lock named after `path` (a journal, an output file), or resolves undefined when another
 * live process holds it. The lock is a listening local socket, which the system closes when the
 * process ends however it ends (SIGKILL included), so a crash never leaves a stale lock behind:
 * Linux uses an abstract socket, Windows a named pipe, and other systems a socket file in the
 * temporary folder that a later run finds dead (nobody accepts on it) and replaces.
 */
export function tryLock(path: string): Promise<ProcessLock | undefined> {
  return lockAt(lockAddress(path));
}

/** Takes the lock called `name` rather than a file's: one lock for every process of the machine that names it. */
export function tryNamedLock(name: string): Promise<ProcessLock | undefined> {
  return lockAt(addressOf(namedKey(name)));
}

/** The PID of the process that holds the lock called `name`; undefined when none does (or it does not say). */
export function namedLockHolder(name: string): Promise<string | undefined> {
  return new Promise((done) => {
    const socket = createConnection({ path: addressOf(namedKey(name)) });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('end', () => done(/^\d+$/.test(text) ? text : undefined));
    socket.once('error', () => done(undefined));
  });
}

const namedKey = (name: string): string => createHash('sha256').update(`named\n${name}`).digest('hex').slice(0, 32);

async function lockAt(address: string): Promise<ProcessLock | undefined> {
  let server = await listen(address);
  if (server === 'in-use' && usesSocketFile() && !(await answers(address))) {
    await unlink(address).catch(() => undefined);
    server = await listen(address);
  }
  if (server === 'in-use') return undefined;
  const held = server;
  held.unref();
  return { release: () => new Promise<void>((done) => held.close(() => done())) };
}

function usesSocketFile(): boolean {
  return process.platform !== 'linux' && process.platform !== 'win32';
}

/** The socket address for a path: the same for every spelling of the path (relative, through a linked folder). */
export function lockAddress(path: string): string {
  const absolute = resolve(path);
  let canonical = absolute;
  try {
    canonical = join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    // the folder does not exist (yet): the absolute path names the file well enough
  }
  return addressOf(createHash('sha256').update(canonical).digest('hex').slice(0, 32));
}

function addressOf(key: string): string {
  if (process.platform === 'linux') return `\0tds-lock-${key}`;
  if (process.platform === 'win32') return `\\\\?\\pipe\\tds-lock-${key}`;
  return join(tmpdir(), `tds-lock-${key}.sock`);
}

function listen(address: string): Promise<Server | 'in-use'> {
  return new Promise((done, fail) => {
    // a process that asks is told the holder's PID (a message can name it)
    const server = createServer((socket) => socket.end(String(process.pid)));
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? done('in-use') : fail(error)));
    server.listen({ path: address, exclusive: true }, () => done(server));
  });
}

/** Whether a live process accepts on the socket file (a dead one's file refuses the connection). */
function answers(address: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ path: address });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

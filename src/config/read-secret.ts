import type { ReadStream } from 'node:tty';
import { TdsError, UsageError, type IO } from '../core/index.js';

const stdinReads = new WeakMap<NodeJS.ReadableStream, Promise<string>>();

/** All of stdin as text, read once per process (the key file `-` and `config set` may both ask). */
export function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let read = stdinReads.get(stdin);
  if (!read) {
    read = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      return Buffer.concat(chunks).toString('utf8');
    })();
    stdinReads.set(stdin, read);
  }
  return read;
}

/**
 * A secret (API key, webhook URL): from a hidden prompt when stdin is a terminal, else the first
 * line of stdin. Never from argv, so it stays out of shell history and the process list.
 */
export async function readSecret(io: IO, label: string): Promise<string> {
  const stdin = io.stdin as Partial<ReadStream> & NodeJS.ReadableStream;
  const text =
    stdin.isTTY && typeof stdin.setRawMode === 'function'
      ? await promptHidden(stdin as ReadStream, io.stderr, `${label}: `)
      : firstLine(await readStdin(io.stdin));
  if (text === '') {
    throw new UsageError(`no ${label} given`, { hint: 'pipe it on stdin (`… < FILE`), or run in a terminal to be prompted' });
  }
  return text;
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '').trim();
}

/** Reads one line from a terminal without echoing it. */
export function promptHidden(stdin: ReadStream, stderr: NodeJS.WritableStream, prompt: string): Promise<string> {
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: string | Buffer): void => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          resolve(value.trim());
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new TdsError('INTERRUPTED', 'interrupted'));
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    stdin.on('data', onData);
  });
}

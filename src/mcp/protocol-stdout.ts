import { Writable } from 'node:stream';

/** The stream the protocol writes to, and how to give process.stdout back. */
export interface ProtocolStdout {
  stream: Writable;
  release(): void;
}

/**
 * stdout carries protocol messages only: the transport gets a stream of its own onto it, and any other
 * write to process.stdout (a library's console.log, a stray progress line) goes to stderr instead.
 */
export function claimStdout(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): ProtocolStdout {
  const write = stdout.write;
  const original = write.bind(stdout);
  stdout.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), done?: () => void) => {
    const callback = typeof encoding === 'function' ? encoding : done;
    if (typeof chunk === 'string' && typeof encoding === 'string') return stderr.write(chunk, encoding, callback);
    return stderr.write(chunk, callback);
  }) as typeof stdout.write;
  const stream = new Writable({
    // one message after the other, each acknowledged once stdout took it: the transport waits on 'drain'
    write(chunk: Buffer, _encoding, callback) {
      original(chunk, (error) => callback(error ?? undefined));
    },
  });
  return {
    stream,
    release: () => {
      stdout.write = write;
    },
  };
}

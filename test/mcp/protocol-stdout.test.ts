import { Console } from 'node:console';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { claimStdout } from '../../src/mcp/serve.js';

// stdout belongs to the protocol: the transport's stream writes to it, every other write goes to stderr.

function streams(): { stdout: NodeJS.WriteStream; stderr: PassThrough; out: () => string; err: () => string } {
  const stdout = new PassThrough() as unknown as NodeJS.WriteStream;
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  (stdout as unknown as PassThrough).on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { stdout, stderr, out: () => out, err: () => err };
}

describe('claimStdout', () => {
  it('sends other writes to stdout (strings, bytes, with a callback) to stderr, and protocol messages to stdout', async () => {
    const s = streams();
    const claimed = claimStdout(s.stdout, s.stderr);
    s.stdout.write('a stray line\n');
    s.stdout.write(Buffer.from('stray bytes\n'));
    await new Promise<void>((done) => s.stdout.write('with a callback\n', 'utf8', () => done()));
    await new Promise<void>((done) => claimed.stream.write('{"jsonrpc":"2.0"}\n', () => done()));
    expect(s.out()).toBe('{"jsonrpc":"2.0"}\n');
    expect(s.err()).toBe('a stray line\nstray bytes\nwith a callback\n');
  });

  it('gives stdout back', () => {
    const s = streams();
    const claimed = claimStdout(s.stdout, s.stderr);
    claimed.release();
    s.stdout.write('mine again\n');
    expect(s.out()).toBe('mine again\n');
    expect(s.err()).toBe('');
  });

  it("keeps a console's lines off the process's stdout (a Console holds the stream and calls its write)", () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const claimed = claimStdout(process.stdout, stderr);
    try {
      new Console({ stdout: process.stdout }).log('from a library');
    } finally {
      claimed.release();
    }
    expect(err).toBe('from a library\n');
  });
});

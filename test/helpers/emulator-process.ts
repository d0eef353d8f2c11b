import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { TDS_BIN } from './cli.js';

export interface EmulatorInfo {
  baseUrl: string;
  apiKey: string;
  webhooks: Record<string, string>;
}

export interface RunningEmulator extends EmulatorInfo {
  child: ChildProcess;
  /** What the emulator wrote on stderr so far (its --verbose request log). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `tds emulator --port 0 …` as a child process and waits for its ready line. */
export function startEmulatorProcess(args: string[] = []): Promise<RunningEmulator> {
  const child = spawn(
    process.execPath,
    [TDS_BIN, 'emulator', '--host', '127.0.0.1', '--port', '0', '--seeded-actions', 'pending', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let errText = '';
  child.stderr!.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emulator did not start in time; stderr:\n${errText}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited early with ${code}; stderr:\n${errText}`));
    });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const info = JSON.parse(line) as EmulatorInfo;
      resolve({
        ...info,
        child,
        stderr: () => errText,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

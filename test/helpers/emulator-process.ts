import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { EnvOverrides } from './hermetic-env.js';
import { RATE_SCALE } from './rate-scale.js';
import { spawnTds } from './spawn-tds.js';

export interface EmulatorInfo {
  baseUrl: string;
  apiKey: string;
  webhooks: Record<string, string>;
}

export interface EmulatorProcess extends EmulatorInfo {
  child: ChildProcess;
  /** What the emulator wrote on stderr so far (its --verbose request log). */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `tds emulator --port 0 …` as a child process and waits for its ready line. It runs at the
 * suite's RATE_SCALE (TDS_RATE_SCALE, as the harness's clients do: emulator-fixture.ts); a `--rate-scale` in `args` wins.
 * Seeded action cells stay as seeded (the seed's states are what many tests compare against) unless
 * `args` asks for `--seeded-actions live`.
 */
export function startEmulatorProcess(args: string[] = [], env: EnvOverrides = {}): Promise<EmulatorProcess> {
  const run = spawnTds(['emulator', '--host', '127.0.0.1', '--port', '0', '--seeded-actions', 'pending', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { TDS_RATE_SCALE: String(RATE_SCALE), ...env },
  });
  const { child } = run;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emulator did not start in time; stderr:\n${run.stderr()}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited early with ${code}; stderr:\n${run.stderr()}`));
    });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const info = JSON.parse(line) as EmulatorInfo;
      resolve({
        ...info,
        child,
        stderr: run.stderr,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

import { spawn } from 'node:child_process';

// One step of `tds demo`: a command line as a user would type it, how it runs, and how its result is shown.

export interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface DemoStep {
  title: string;
  /** The command line as a user would type it. */
  display: string;
  /** Arguments after `tds`: the step runs the real tds with them. */
  args?: string[];
  /** Instead of `args`, for a command that is not tds (curl): done in-process, with the output the command gives. */
  run?: () => Promise<StepResult>;
  prepare?: () => Promise<void>;
  /** What the step shows (default: its stdout); its stderr follows unless `showStderr` is false. */
  show?: (result: StepResult) => Promise<string>;
  showStderr?: boolean;
  /** The exit code the step ends with (default 0): `tds check` that finds a failing check exits 9. */
  expectCode?: number;
}

/** What the steps know of the demo's emulator and folder. */
export interface DemoTour {
  dir: string;
  /** `http://127.0.0.1:PORT`: the emulator's own routes are under `/_emulator`. */
  origin: string;
  /** Table ID by name, for the admin routes. */
  tableIds: Record<string, string>;
}

/** Runs a command with `input` on its stdin; resolves with its stdout (for the jq step). */
export function pipeThrough(command: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(output));
    child.stdin.end(input);
  });
}

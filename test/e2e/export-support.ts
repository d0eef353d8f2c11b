import { access, mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { emulatorRequests, type Target } from './read-support.js';

// Helpers of the end-to-end tests of exports: the file's harness with the emulator spawned, and waits on
// files and conditions while tds runs as a child process (the fixture's harness.spawn), what a checkpoint
// counts, and the pages the emulator served.

/** The file's harness, its tds, and new folders in the running test's `tmp`: what `spawnedHarness` gives. */
export interface SpawnedHarness {
  /** The file's harness (`tds emulator` as a process), once the file's tests run. */
  emulator: Harness;
  /** tds in this process against it. */
  tds: Harness['tds'];
  /** A new folder `PREFIX…` in the running test's `tmp`. */
  tempDir: () => Promise<string>;
}

/** Sets up the file's harness with the emulator spawned (called at the top of a test file). */
export function spawnedHarness(prefix = 'export-'): SpawnedHarness {
  let opened: Harness | undefined;
  let folder: string | undefined;
  const current = (): Harness => {
    if (!opened) throw new Error("the file's harness is opened when its tests start");
    return opened;
  };
  it.override({ harnessOptions: { spawned: {} } });
  it.beforeAll(({ harness }) => {
    opened = harness;
  });
  it.beforeEach(({ tmp }) => {
    folder = tmp;
  });
  return {
    emulator: new Proxy({} as Harness, { get: (_, key) => Reflect.get(current(), key) as unknown }),
    tds: (args, options) => current().tds(args, options),
    tempDir: () => mkdtemp(join(folder!, prefix)),
  };
}

export const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Waits until `check()` holds, polling every 20 ms, for at most `timeoutMs` (on a clock a test's fake Date leaves alone). */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The rows FILE's checkpoint (FILE.tds-checkpoint) counts; undefined when there is none. */
export const checkpointRows = async (file: string): Promise<number | undefined> =>
  (await exists(`${file}.tds-checkpoint`))
    ? (JSON.parse(await readFile(`${file}.tds-checkpoint`, 'utf8')) as { rows: number }).rows
    : undefined;

/** The position a later `pagesServedSince` counts from. */
export const logMark = async (target: Target): Promise<number> => (await emulatorRequests(target)).length;

/**
 * Row pages served (200) since a mark: a resumed process cannot know the window a killed one used,
 * so a 429 and its retry are allowed and not counted.
 */
export const pagesServedSince = async (target: Target, mark: number): Promise<number> =>
  (await emulatorRequests(target)).slice(mark).filter((entry) => /\/rows(\?|$)/.test(entry.path) && entry.status === 200).length;

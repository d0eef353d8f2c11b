import { access, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Helpers of the end-to-end tests of exports: the file's harness with the emulator spawned, and waits on
// files and conditions while tds runs as a child process (the fixture's harness.spawn).

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

/** Waits until `check()` holds, polling every 20 ms, for at most `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

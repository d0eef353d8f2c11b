import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from './emulator-fixture.js';

// The running test's temporary folder (the fixture's `tmp`, removed after the test) for a file whose
// helpers make paths outside a test's body, where the fixture cannot be asked for it.

export interface TestFolder {
  /** The running test's folder. */
  readonly path: string;
  /** A new folder in it whose name begins with `prefix`. */
  make(prefix: string): Promise<string>;
}

/** Called once at the top of a test file: from then on, `path` is each of its tests' own folder. */
export function useTestFolder(): TestFolder {
  let current: string | undefined;
  test.beforeEach(({ tmp }) => {
    current = tmp;
  });
  const folder: TestFolder = {
    get path(): string {
      if (current === undefined) throw new Error('the test folder is set before each test, not while the file loads');
      return current;
    },
    make: (prefix) => mkdtemp(join(folder.path, `${prefix}-`)),
  };
  return folder;
}

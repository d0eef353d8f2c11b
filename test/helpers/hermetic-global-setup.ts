import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPrivate, NO_CONFIG_DIR } from './hermetic-env.js';

// Before any test file runs (vitest globalSetup): the workers, and every process they start, inherit an
// environment without the developer's TDS_* and colour variables, a config folder that does not exist,
// an empty home folder (so ~/.config/tds, wherever a run would look for it, is not the developer's), and
// a temporary directory of the run's own (TMPDIR). After the run, that directory must be empty: a test
// that leaves a file or folder behind fails the run (and the directory is removed all the same).

export default async function setup(): Promise<() => Promise<void>> {
  const home = await mkdtemp(join(tmpdir(), 'tds-test-home-'));
  const temp = await mkdtemp(join(tmpdir(), 'tds-test-tmp-'));
  for (const key of Object.keys(process.env)) if (isPrivate(key)) delete process.env[key];
  Object.assign(process.env, {
    TDS_CONFIG_DIR: NO_CONFIG_DIR,
    TDS_KEYCHAIN: 'off',
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    APPDATA: join(home, 'AppData', 'Roaming'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    LOCALAPPDATA: join(home, 'AppData', 'Local'),
    TMPDIR: temp,
    TMP: temp,
    TEMP: temp,
    // DuckDB's allocator keeps freed pages a second: a sync and a diff set it to give them
    // back sooner (duckdb/engine.ts returnFreedMemory) for a flat RSS, which no test measures, and a worker
    // keeps the setting of its first such command for every file after it, each page given back a page
    // fault (on a machine where those are dear, over a quarter of the suite's CPU went to the kernel)
    DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:1000,muzzy_decay_ms:1000',
  });
  return async () => {
    // a push by key that ends before its rows show leaves a note for the next push into that table, on
    // purpose (src/push/key/table-lock.ts): the tests that kill such a push leave it; it goes with the directory
    const left = (await readdir(temp)).filter((name) => !/^tds-push-key-[0-9a-f]{16}\.json$/.test(name));
    await rm(home, { recursive: true, force: true });
    await rm(temp, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`the tests left ${left.length} entries in the temporary directory: ${left.sort().join(', ')}`);
  };
}

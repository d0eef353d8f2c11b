import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPrivate, NO_CONFIG_DIR } from './hermetic-env.js';

// Before any test file runs (vitest globalSetup): the workers, and every process they start, inherit an
// environment without the developer's TDS_* and colour variables, a config folder that does not exist,
// and an empty home folder (so ~/.config/tds, wherever a run would look for it, is not the developer's).

export default async function setup(): Promise<() => Promise<void>> {
  const home = await mkdtemp(join(tmpdir(), 'tds-test-home-'));
  for (const key of Object.keys(process.env)) if (isPrivate(key)) delete process.env[key];
  Object.assign(process.env, {
    TDS_CONFIG_DIR: NO_CONFIG_DIR,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    APPDATA: join(home, 'AppData', 'Roaming'),
  });
  return () => rm(home, { recursive: true, force: true });
}

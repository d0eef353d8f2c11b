import { resolve } from 'node:path';

// tds resolves relative paths (an input file, --journal, tds.duckdb) against the working folder,
// which a process has one of. In-process runs that ask for different folders take turns: a run
// starts when no run is under way in another folder, and the folder is changed for it.

const HOME = process.cwd();
let current = HOME;
let active = 0;
let waiting: Array<() => void> = [];

/** Runs `work` with `cwd` (default: the folder the tests started in) as the working folder. */
export async function inFolder<T>(cwd: string | undefined, work: () => Promise<T>): Promise<T> {
  const wanted = resolve(cwd ?? HOME);
  while (active > 0 && current !== wanted) await new Promise<void>((wake) => waiting.push(wake));
  if (active === 0 && current !== wanted) {
    process.chdir(wanted);
    current = wanted;
  }
  active += 1;
  try {
    return await work();
  } finally {
    active -= 1;
    if (active === 0) {
      if (current !== HOME) process.chdir(HOME);
      current = HOME;
      const woken = waiting;
      waiting = [];
      for (const wake of woken) wake();
    }
  }
}

#!/usr/bin/env node
// `npm run bench [-- NAME…]`: runs every bench/*.bench.js (or the named ones) one after another.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.js'))
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.bench\.js$/, '')))
  .sort();
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n== ${file.replace(/\.bench\.js$/, '')} ==\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);

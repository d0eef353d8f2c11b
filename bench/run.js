#!/usr/bin/env node
// @ts-check
// `npm run bench [-- NAME…] [--repeat N]`: runs every bench/*.bench.js (or the named ones: NAME runs NAME.bench.js
// and NAME-*.bench.js, so `push` runs push-key and push-skip-existing too) one after another; exits 1 when any bench
// failed (missed a target or crashed), 2 when a name matches no bench. A figure that compares two things is
// measured in N paired, alternating runs (--repeat, at least 5; support.mjs pairedRuns) and judged by its median.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
// `--repeat N`: the pairs of every comparison (support.mjs repeats(), at least 5), passed on as BENCH_REPEAT
const args = process.argv.slice(2);
const repeatAt = args.indexOf('--repeat');
if (repeatAt >= 0) {
  const count = Number(args[repeatAt + 1]);
  if (!Number.isInteger(count) || count < 1) {
    console.error('--repeat needs a whole number of pairs (at least 5 are run)');
    process.exit(2);
  }
  process.env.BENCH_REPEAT = String(count);
  args.splice(repeatAt, 2);
}
const wanted = args;
const available = readdirSync(here)
  .filter((file) => file.endsWith('.bench.js'))
  .map((file) => file.replace(/\.bench\.js$/, ''))
  .sort();
const matches = (/** @type {string} */ bench, /** @type {string} */ name) => bench === name || bench.startsWith(`${name}-`);
const unknown = wanted.filter((name) => !available.some((bench) => matches(bench, name)));
if (unknown.length > 0) {
  console.error(`no bench named ${unknown.join(', ')}; the benches are: ${available.join(', ')}`);
  process.exit(2);
}
/** @type {string[]} */
const failed = [];
for (const name of available.filter((bench) => wanted.length === 0 || wanted.some((name) => matches(bench, name)))) {
  process.stdout.write(`\n== ${name} ==\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', join(here, `${name}.bench.js`)], { stdio: 'inherit' });
  if (result.status !== 0) failed.push(`${name} (${result.signal ?? `exit ${result.status}`})`);
}
if (failed.length > 0) console.log(`\nfailed: ${failed.join(', ')}`);
process.exit(failed.length > 0 ? 1 : 0);

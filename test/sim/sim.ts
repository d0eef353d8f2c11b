import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { generateHistory, type History } from './history.js';
import { INVARIANTS, type InvariantId } from './invariants.js';
import { shrink, type Shrunk } from './shrink.js';
import { runHistory } from './simulate.js';

// `npm run sim -- [--seed N] [--steps K] [--seeds S | --minutes M] [--keep-going] [--replay FILE [--shrink]] [--no-shrink] [--verbose]`:
// histories generated from seeds (N, N+1, …), run against a fresh world each, every invariant checked
// after every step. A violation is shrunk, written as a history file, and printed with the command that
// replays it; the run then exits 1. A clean run ends with one line: `sim: K steps, S seeds, I invariant
// checks, 0 violations`.

export interface SimArgs {
  seed: number;
  steps: number;
  seeds: number;
  minutes?: number;
  replay?: string;
  shrink: boolean;
  /** --replay with --shrink: a failing history file is shrunk further */
  shrinkReplay: boolean;
  shrinkMinutes: number;
  verbose: boolean;
  /** go on with the next seed after a violation (the run still exits 1) */
  keepGoing: boolean;
}

/** Where found histories are written (git ignores it); the ones kept go to test/sim/histories/. */
export const FOUND_DIR = '.sim';

export function parseSimArgs(argv: readonly string[]): SimArgs {
  const args: SimArgs = {
    seed: 1,
    steps: 30,
    seeds: 1,
    shrink: true,
    shrinkReplay: false,
    shrinkMinutes: 10,
    verbose: false,
    keepGoing: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const value = (): string => {
      const next = argv[(i += 1)];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    const number = (): number => {
      const text = value();
      const parsed = Number(text);
      if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${flag}: "${text}" is not a number`);
      return parsed;
    };
    if (flag === '--seed') args.seed = number();
    else if (flag === '--steps') args.steps = Math.max(1, Math.floor(number()));
    else if (flag === '--seeds') args.seeds = Math.max(1, Math.floor(number()));
    else if (flag === '--minutes') args.minutes = number();
    else if (flag === '--replay') args.replay = value();
    else if (flag === '--no-shrink') args.shrink = false;
    else if (flag === '--shrink') args.shrinkReplay = true;
    else if (flag === '--shrink-minutes') args.shrinkMinutes = number();
    else if (flag === '--verbose') args.verbose = true;
    else if (flag === '--keep-going') args.keepGoing = true;
    else throw new Error(`unknown option ${flag} (see test/sim/sim.ts)`);
  }
  return args;
}

/** Runs the simulator as the arguments say; resolves with the exit status (0 clean, 1 a violation). */
export async function simulate(args: SimArgs, print: (line: string) => void): Promise<number> {
  const log = args.verbose ? print : () => undefined;
  if (args.replay) {
    const history = JSON.parse(await readFile(args.replay, 'utf8')) as History;
    const outcome = await runHistory(history, log);
    if (!outcome.violation) {
      print(`sim: ${outcome.steps} steps, 1 seeds, ${outcome.checks} invariant checks, 0 violations`);
      return 0;
    }
    const { invariant, step, detail } = outcome.violation;
    print(`sim: replay of ${args.replay}: invariant ${invariant} broken at step ${step}: ${detail}`);
    if (args.shrinkReplay) await report(history.seed ?? 0, await shrink(history, outcome, args.shrinkMinutes * 60_000, log), print);
    return 1;
  }

  const started = Date.now();
  let steps = 0;
  let checks = 0;
  let seeds = 0;
  let violations = 0;
  for (let seed = args.seed; ; seed += 1) {
    if (args.minutes === undefined ? seeds >= args.seeds : Date.now() - started >= args.minutes * 60_000) break;
    seeds += 1;
    const history = generateHistory(seed, args.steps);
    const outcome = await runHistory(history, log);
    steps += outcome.steps;
    checks += outcome.checks;
    if (!outcome.violation) continue;
    const { invariant, step, detail } = outcome.violation;
    print(`sim: seed ${seed}: invariant ${invariant} (${INVARIANTS[invariant as InvariantId]}) broken at step ${step}:`);
    print(`  ${detail}`);
    await report(
      seed,
      args.shrink ? await shrink(history, outcome, args.shrinkMinutes * 60_000, log) : { history, outcome, runs: 0 },
      print,
    );
    violations += 1;
    if (!args.keepGoing) break;
  }
  if (args.minutes !== undefined) {
    const minutes = (Date.now() - started) / 60_000;
    print(`sim: ${Math.round(steps / minutes)} steps a minute, ${Math.round(checks / seeds)} invariant checks a run`);
  }
  print(`sim: ${steps} steps, ${seeds} seeds, ${checks} invariant checks, ${violations} violations`);
  return violations === 0 ? 0 : 1;
}

/** A shrunk history: written to a file, and the command that replays it. */
async function report(seed: number, found: Shrunk, print: (line: string) => void): Promise<void> {
  const file = await writeHistory(seed, { ...found.history, invariant: found.outcome.violation?.invariant });
  print(
    `  shrunk in ${found.runs} runs to ${found.history.steps.length} steps (${relative(process.cwd(), file)}): ${found.outcome.violation?.detail}`,
  );
  print(`  replay: npm run sim -- --replay ${relative(process.cwd(), file)}`);
}

async function writeHistory(seed: number, history: History & { invariant?: number }): Promise<string> {
  await mkdir(FOUND_DIR, { recursive: true });
  const file = join(FOUND_DIR, `seed-${seed}.json`);
  await writeFile(file, `${JSON.stringify(history, null, 2)}\n`);
  return file;
}

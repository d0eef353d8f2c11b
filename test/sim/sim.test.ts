import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { generateHistory, type History } from './history.js';
import { INVARIANTS, type InvariantId } from './invariants.js';
import { runHistory, type RunOutcome } from './simulate.js';

// The simulator in the suite: a smoke of fixed seeds (short histories, every invariant after every step;
// 768 and 773 reach a --changes pipe closed early, --prune-history, the lake, tds check --notify, and churn
// across a restart of the emulator from its data file), and every history the simulator shrank from a real
// bug, replayed (test/sim/histories/: one file each, named after what it broke). `npm run sim` runs longer
// histories over many seeds.

const SMOKE_SEEDS = [768, 773];
const SMOKE_STEPS = 6;
const HISTORIES = fileURLToPath(new URL('histories/', import.meta.url));

const broken = (outcome: RunOutcome): string =>
  outcome.violation
    ? `invariant ${outcome.violation.invariant} (${INVARIANTS[outcome.violation.invariant as InvariantId]}) at step ${outcome.violation.step}: ${outcome.violation.detail}`
    : '';

describe('the simulator', () => {
  test.each(SMOKE_SEEDS)('seed %i: no invariant is broken', { timeout: 120_000 }, async (seed) => {
    const outcome = await runHistory(generateHistory(seed, SMOKE_STEPS));
    expect(broken(outcome)).toBe('');
    expect(outcome.steps).toBe(SMOKE_STEPS);
    expect(outcome.checks).toBeGreaterThan(SMOKE_STEPS);
  });

  const kept = readdirSync(HISTORIES).filter((name) => name.endsWith('.json'));
  test.each(kept)('the history %s, shrunk from a bug, replays without a violation', { timeout: 120_000 }, async (name) => {
    const history = JSON.parse(readFileSync(`${HISTORIES}${name}`, 'utf8')) as History;
    expect(broken(await runHistory(history))).toBe('');
  });
});

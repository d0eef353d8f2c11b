import type { History, Step } from './history.js';
import { runHistory, type RunOutcome } from './simulate.js';

// Shrinking a failing history to a short one that breaks the same invariant: steps after the failing one
// are cut, then chunks of steps and single steps are left out (delta debugging) while the run still breaks
// it, then the sizes in the steps left are halved where that still does. Each try is a whole run.

export interface Shrunk {
  history: History;
  outcome: RunOutcome;
  runs: number;
}

const SIZES = ['rows', 'count', 'records', 'ms', 'churnMs'] as const;

export async function shrink(
  history: History,
  failed: RunOutcome,
  budgetMs: number,
  log: (line: string) => void = () => undefined,
): Promise<Shrunk> {
  const invariant = failed.violation!.invariant;
  const shape = shapeOf(failed.violation!.detail);
  const deadline = Date.now() + budgetMs;
  let best = { steps: history.steps.slice(0, failed.violation!.step + 1), outcome: failed };
  let runs = 0;
  const tryOut = async (steps: Step[]): Promise<boolean> => {
    if (Date.now() > deadline) return false;
    runs += 1;
    const outcome = await runHistory({ steps });
    // the same invariant broken the same way (not another bug that breaks it too)
    if (outcome.violation?.invariant !== invariant || shapeOf(outcome.violation.detail) !== shape) return false;
    best = { steps: steps.slice(0, outcome.violation.step + 1), outcome };
    log(`shrink: ${best.steps.length} steps break invariant ${invariant}`);
    return true;
  };

  for (let chunk = Math.ceil(best.steps.length / 2); chunk >= 1 && Date.now() < deadline; chunk = Math.floor(chunk / 2)) {
    // from the end: later steps depend on earlier ones more often than the other way round
    for (let start = best.steps.length - chunk; start >= 0 && Date.now() < deadline; start -= chunk) {
      const candidate = [...best.steps.slice(0, start), ...best.steps.slice(start + chunk)];
      if (candidate.length > 0) await tryOut(candidate);
      start = Math.min(start, best.steps.length);
    }
  }
  for (let i = 0; i < best.steps.length && Date.now() < deadline; i += 1) {
    for (const size of SIZES) {
      for (;;) {
        const step = best.steps[i] as Record<string, unknown> | undefined;
        const value = step?.[size];
        if (typeof value !== 'number' || value <= 1) break;
        const smaller = [...best.steps];
        smaller[i] = { ...step, [size]: Math.floor(value / 2) } as Step;
        if (!(await tryOut(smaller))) break;
      }
    }
  }
  return { history: { ...(history.seed === undefined ? {} : { seed: history.seed }), steps: best.steps }, outcome: best.outcome, runs };
}

/** What a violation says, without its numbers, IDs and names: two details of one shape are one failure. */
function shapeOf(detail: string): string {
  return detail
    .replace(/(row|tbl|fld)_[\w-]+/g, 'ID')
    .replace(/\d[\d,.]*/g, 'N')
    .slice(0, 48);
}

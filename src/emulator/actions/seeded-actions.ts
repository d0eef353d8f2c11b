import { createPrng } from '../seed/prng.js';
import type { EmulatorState } from '../store/state.js';
import type { ActionRunner } from './action-runner.js';

/**
 * The seed's action cells that are not final (queued, waiting, running) run on, as new ones do, so a living
 * organization has no cell stuck forever. Their outcomes come from the fault seed, on a stream of their own:
 * the outcomes of rows that arrive later are the same whether seeded cells run or not.
 */
export function resumeSeededActions(state: EmulatorState, runner: ActionRunner, faultSeed: number): void {
  const draw = createPrng((faultSeed ^ 0x5eed_ac75) >>> 0);
  for (const table of state.tables) runner.resume(table, table.rows.held(), draw);
}

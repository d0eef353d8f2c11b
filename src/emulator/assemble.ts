import { ActionRunner } from './actions/action-runner.js';
import { ChurnSpecError, parseChurnRates } from './churn/churn-rates.js';
import { Churn } from './churn/churn.js';
import { DEFAULT_ACTION_DELAY_MS, DEFAULT_INGEST_DELAY_MS } from './defaults.js';
import { buildSeed } from './seed/index.js';
import { createPrng } from './seed/prng.js';
import { EmulatorClock } from './store/clock.js';
import { addBenchTable } from './store/generated-overlay.js';
import { LiveRows } from './store/live-rows.js';
import { loadState } from './store/persist.js';
import type { EmulatorState } from './store/state.js';
import type { EmulatorOptions } from './store/types.js';
import { Intake } from './webhook/intake.js';

/** The parts of an emulator that live apart from its HTTP server. */
export interface EmulatorParts {
  state: EmulatorState;
  clock: EmulatorClock;
  runner: ActionRunner;
  live: LiveRows;
  intake: Intake;
  churn?: Churn;
}

/** State (loaded from --data, else seeded), the clock, action runs, webhook intake and churn; nothing started yet. */
export async function assemble(options: EmulatorOptions): Promise<EmulatorParts> {
  const churnSpec = options.churn === undefined ? undefined : parseChurnRates(options.churn);
  const loaded = options.dataFile ? await loadState(options.dataFile) : undefined;
  const clock = new EmulatorClock(options.now ?? Date.now, loaded?.clockOffsetMs ?? 0);
  const state = loaded?.state ?? buildSeed(options.seed ?? 'demo', clock.now());
  if (options.rows !== undefined && options.rows > 0) addBenchTable(state, options.rows, clock.now());
  if (options.paused && state.orgs[0]) state.orgs[0].paused = true;

  const seed = options.faultSeed ?? 1;
  const runner = new ActionRunner({ delayMs: options.actionDelayMs ?? DEFAULT_ACTION_DELAY_MS, seed, now: clock.now });
  if (!loaded && options.seededActions !== 'pending') resumeSeededActions(state, runner, seed);
  const live = new LiveRows(runner, clock.now);
  const intake = new Intake(options.ingestDelayMs ?? DEFAULT_INGEST_DELAY_MS, clock.now, live, options.rateScale);
  const parts: EmulatorParts = { state, clock, runner, live, intake };
  if (churnSpec) {
    const only = churnSpec.table;
    if (only !== undefined && !state.tables.some((table) => table.name === only || table.id === only)) {
      throw new ChurnSpecError(`churn spec: no table "${only}" (give a table's name or ID)`);
    }
    parts.churn = new Churn(churnSpec, { tables: () => state.tables, live, now: clock.now, seed });
  }
  return parts;
}

/**
 * The seed's action cells that are not final (queued, waiting, running) run on, as new ones do, so a living
 * organization has no cell stuck forever. Their outcomes come from the fault seed, on a stream of their own:
 * the outcomes of rows that arrive later are the same whether seeded cells run or not.
 */
export function resumeSeededActions(state: EmulatorState, runner: ActionRunner, faultSeed: number): void {
  const draw = createPrng((faultSeed ^ 0x5eed_ac75) >>> 0);
  for (const table of state.tables) runner.resume(table, table.rows.held(), draw);
}

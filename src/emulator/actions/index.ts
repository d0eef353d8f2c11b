// emulator/actions/: action cells that run. Surface: ActionRunner (action-runner.ts: a cell queued, waiting
// and running on the emulator's clock to its outcome, drawn from the fault seed), which the emulator's
// assembly and LiveRows use.

export { ActionRunner } from './action-runner.js';

import type { PassState } from './table-state.js';

/** A pass that has read nothing yet. */
export function newPass(mode: PassState['mode']): PassState {
  return {
    mode,
    cursor: null,
    startedAt: null,
    top: null,
    oldest: null,
    requests: 0,
    rows: 0,
    inserted: 0,
    updated: 0,
    unfit: 0,
  };
}

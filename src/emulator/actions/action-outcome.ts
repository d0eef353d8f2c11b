import { isEmptyValue } from '../store/cell-text.js';
import { deriveValue } from '../store/derive-value.js';
import type { FieldRec, StoredCell, StoredRow } from '../store/model.js';

/** The realistic mix of final states (cumulative): mostly success. */
const SUCCESS = 0.85;
const FAILED = 0.92;
const SKIPPED = 0.96;

const PROVIDER_ERRORS: readonly unknown[] = [
  'The provider did not answer in time',
  { code: 'RATE_LIMITED', message: 'Provider rate limit reached' },
  'Provider returned an unexpected response',
];

/**
 * The final cell of an action run, from the row as it is when the run ends and a draw in [0, 1) made when
 * it started. An action with an input column (`from`, else the value of the action it depends on) is
 * skipped when that input is empty (its run condition is not met); otherwise the draw decides:
 * success (the derived value, or failed when nothing can be derived), failed, skipped or stopped.
 */
export function actionOutcome(field: FieldRec, row: StoredRow, draw: number): StoredCell {
  const { from, dependsOn, derive } = field.action ?? {};
  const hasInput = from !== undefined || dependsOn !== undefined;
  const input = from !== undefined ? row.cells[from]?.value : dependsOn !== undefined ? dependencyValue(row.cells[dependsOn]) : undefined;
  if (hasInput && isEmptyValue(input)) return { status: 'skipped' };
  if (draw < SUCCESS) {
    if (!hasInput && derive === undefined) return { status: 'success', value: 'ok' };
    const derived = deriveValue(derive, input);
    return 'error' in derived ? { status: 'failed', errorMessage: derived.error } : { status: 'success', value: derived.value };
  }
  if (draw < FAILED) {
    const which = Math.floor(((draw - SUCCESS) / (FAILED - SUCCESS)) * PROVIDER_ERRORS.length);
    return { status: 'failed', errorMessage: PROVIDER_ERRORS[Math.min(which, PROVIDER_ERRORS.length - 1)] };
  }
  return { status: draw < SKIPPED ? 'skipped' : 'stopped' };
}

function dependencyValue(cell: StoredCell | undefined): unknown {
  return cell?.status === 'success' || cell?.status === 'manual' ? cell.value : undefined;
}

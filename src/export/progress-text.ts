import { etaMs, formatDuration, type EtaInput } from './eta.js';

export interface ProgressSnapshot {
  rows: number;
  /** Rows written before this run (a resumed export): left out of the rate. */
  startRows?: number;
  elapsedMs: number;
  /** Rows the export will write in all: the table's rowCount (capped by --limit) for unfiltered exports. */
  total?: number;
  eta?: Omit<EtaInput, 'remainingRows'>;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** `1,200 rows · 95 rows/s · 48% of 2,500 · about 12s left` (without total: just rows and rate). */
export function progressText(snapshot: ProgressSnapshot): string {
  const { rows, elapsedMs, total } = snapshot;
  const rate = elapsedMs > 0 ? Math.round(((rows - (snapshot.startRows ?? 0)) * 1000) / elapsedMs) : 0;
  const parts = [`${count(rows)} rows`, `${count(rate)} rows/s`];
  if (total !== undefined && total > 0) {
    parts.push(`${Math.min(100, Math.floor((rows * 100) / total))}% of ${count(total)}`);
    if (snapshot.eta && rows < total) parts.push(`about ${formatDuration(etaMs({ ...snapshot.eta, remainingRows: total - rows }))} left`);
  }
  return parts.join(' · ');
}

/**
 * How far below the time it can vouch for an incremental sync reads again. Webhook rows keep the time
 * of their request as their creation time and become visible up to about 30 s later (docs/service-api.md
 * 4.7), so a row can appear after a sync with a creation time older than rows that sync saw. Twice
 * that window, since the service says "about". Every time here is the service's: its rows' creation
 * times and the Date of its answers, never this machine's clock, which may run ahead of the service's
 * by any amount (a watermark ahead of the service's time would hide the rows created below it).
 */
export const WATERMARK_MARGIN_MS = 60_000;

/** What the end of a complete pass knows to place the next incremental sync's stop. */
export interface WatermarkInputs {
  /** Creation time of the newest row synced (the service's clock). */
  newestCreatedAt: string | null;
  /** Creation time of the oldest row with an action cell still queued, waiting or running. */
  pendingSince: string | null;
  /** When the pass began on the service's clock: the Date of its first answer (null when it had none). */
  passStartedAt: string | null;
}

/**
 * Where the next incremental sync stops reading: below every row that might not have been visible
 * when this pass began, and below every row whose action cells were not final yet.
 *
 * A row created more than the intake window before the pass began was visible when it began, so the
 * pass read it (or an earlier pass did): the next one needs only the rows created since the pass
 * began, less the margin. When the pass began is the later of two readings on the service's clock
 * that each can only be early: the Date of the pass's first answer (whole seconds, cut down) and the
 * creation time of the newest row synced (never later than the service's now, but early when the
 * table has been quiet). Either alone is safe; the later one is the tighter: after a burst, once the
 * margin has passed since, an idle sync reads one page instead of every row of the minute before the
 * newest. A row with an unfinished action is read again until it settles, however old.
 */
export function nextWatermark({ newestCreatedAt, pendingSince, passStartedAt }: WatermarkInputs): string | null {
  const began = Math.max(instant(passStartedAt), instant(newestCreatedAt));
  const bound = pendingSince === null ? began : Math.min(began, Date.parse(pendingSince));
  // nothing to vouch for (an empty table read with no Date): the next pass reads every row
  return bound === -Infinity ? null : new Date(bound - WATERMARK_MARGIN_MS).toISOString();
}

const instant = (iso: string | null): number => (iso === null ? -Infinity : Date.parse(iso));

/** An HTTP Date header (`Tue, 03 Mar 2026 12:00:00 GMT`) as ISO text; null when there is none or it is not a date. */
export function serviceDate(header: string | undefined): string | null {
  const ms = header === undefined ? Number.NaN : Date.parse(header);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Whether a page whose oldest row was created at `createdAt` reaches below the watermark (reading can stop). */
export function reachesWatermark(createdAt: string, watermark: string | null): boolean {
  return watermark !== null && Date.parse(createdAt) < Date.parse(watermark);
}

/** The later of two instants (ISO text), either possibly missing. */
export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

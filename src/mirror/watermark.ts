/**
 * How far below the time it can vouch for an incremental sync reads again. Webhook rows keep the time
 * of their request as their creation time and become visible up to about 30 s later (service-api.md
 * 4.7), so a row can appear after a sync with a creation time older than rows that sync saw. Twice
 * that window: 30 s for the intake, and 30 s for the local clock running ahead of the service's (the
 * start of a sync is read on the local clock; see nextWatermark). A local clock behind the service's
 * only makes syncs read more.
 */
export const WATERMARK_MARGIN_MS = 60_000;

/** What the end of a complete pass knows to place the next incremental sync's stop. */
export interface WatermarkInputs {
  /** Creation time of the newest row synced (the service's clock). */
  newestCreatedAt: string | null;
  /** Creation time of the oldest row with an action cell still queued, waiting or running. */
  pendingSince: string | null;
  /** When the pass began (the local clock), before its first row request. */
  passStartedAt: string;
}

/**
 * Where the next incremental sync stops reading: below every row that might not have been visible
 * when this pass began, and below every row whose action cells were not final yet.
 *
 * A row created more than the intake window before the pass began was visible when it began, so the
 * pass read it (or an earlier pass did): the next one needs only the rows created since the pass
 * began, less the margin. When the pass began is the later of two readings that each can only be
 * early: the local clock (early when it runs behind the service's; the margin covers it running
 * ahead) and the creation time of the newest row synced (the service's own clock, never later than
 * the service's now, but early when the table has been quiet). Either alone is safe; the later one
 * is the tighter: after a burst, once the margin has passed since, an idle sync reads one page
 * instead of every row of the minute before the newest. A row with an unfinished action is read
 * again until it settles, however old.
 */
export function nextWatermark({ newestCreatedAt, pendingSince, passStartedAt }: WatermarkInputs): string {
  const began = Math.max(Date.parse(passStartedAt), newestCreatedAt === null ? -Infinity : Date.parse(newestCreatedAt));
  const bound = pendingSince === null ? began : Math.min(began, Date.parse(pendingSince));
  return new Date(bound - WATERMARK_MARGIN_MS).toISOString();
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

/**
 * How far below its newest synced row an incremental sync reads. The webhook makes rows visible up
 * to about 30 s after they arrive (service-api.md 4.7), and a row's creation time may be the time it
 * arrived: a row can become visible after a sync with a creation time older than the newest row that
 * sync saw. Twice that window keeps such rows above the watermark; it costs re-reading about a
 * minute of rows (usually part of the one page an idle sync reads anyway).
 */
export const WATERMARK_MARGIN_MS = 60_000;

/**
 * Where the next incremental sync stops: the creation time of the newest row synced, or of the
 * oldest row whose action cells were not final yet, whichever is older, less the margin.
 */
export function nextWatermark(newestCreatedAt: string | null, pendingSince: string | null): string | null {
  const times = [newestCreatedAt, pendingSince].filter((time): time is string => time !== null).map((time) => Date.parse(time));
  if (times.length === 0) return null;
  return new Date(Math.min(...times) - WATERMARK_MARGIN_MS).toISOString();
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

/** The `limit` of the next page request: the page size, or fewer when --limit needs fewer rows. */
export function pageLimit(pageSize: number, limit: number | undefined, written: number): number {
  return limit === undefined ? pageSize : Math.max(1, Math.min(pageSize, limit - written));
}

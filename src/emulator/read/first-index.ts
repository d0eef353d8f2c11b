/** The first index in [0, size) where the monotone `isAtOrPast` holds (size when none). */
export function firstIndex(size: number, isAtOrPast: (index: number) => boolean): number {
  let low = 0;
  let high = size;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isAtOrPast(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

// Bars and sparklines drawn with block characters, for the terminal report. Pure: widths in, text out.

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** A bar `width` characters wide, filled to `fraction` (0–1) in eighths of a character; the rest `░`. */
export function fillBar(fraction: number, width: number): string {
  const eighths = Math.round(Math.min(1, Math.max(0, fraction)) * width * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return '█'.repeat(full) + part + '░'.repeat(width - full - (part ? 1 : 0));
}

/**
 * Splits `width` characters among counts in proportion (largest remainders), so the parts add up to
 * `width` and every non-zero count gets at least one character while there are characters to give.
 */
export function proportionalWidths(counts: readonly number[], width: number): number[] {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0 || width <= 0) return counts.map(() => 0);
  const shares = counts.map((n) => (n / total) * width);
  const widths = shares.map((share, i) => (counts[i]! > 0 ? Math.max(1, Math.floor(share)) : 0));
  let left = width - widths.reduce((sum, w) => sum + w, 0);
  const byRemainder = shares.map((share, i) => ({ i, rest: share - Math.floor(share) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; left > 0 && byRemainder.length > 0; k = (k + 1) % byRemainder.length) {
    const { i } = byRemainder[k]!;
    if (counts[i]! > 0) {
      widths[i]! += 1;
      left -= 1;
    }
  }
  // a count's minimum of one may have given away more than there was: take back from the widest
  while (left < 0) {
    const widest = widths.indexOf(Math.max(...widths));
    widths[widest]! -= 1;
    left += 1;
  }
  return widths;
}

/** One character per value, its height in eighths of the largest; a zero is a space. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((value) => (value <= 0 || max === 0 ? ' ' : SPARKS[Math.min(7, Math.max(0, Math.ceil((value / max) * 8) - 1))]!))
    .join('');
}

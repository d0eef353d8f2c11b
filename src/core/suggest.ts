// "did you mean …?" candidates: the closest names by edit distance, ignoring case.

export function closest(input: string, candidates: Iterable<string>, max = 3): string[] {
  const needle = input.toLowerCase();
  const limit = Math.max(1, Math.floor(needle.length / 3));
  const scored: Array<{ candidate: string; distance: number }> = [];
  for (const candidate of new Set(candidates)) {
    const hay = candidate.toLowerCase();
    if (Math.abs(hay.length - needle.length) > limit) continue;
    const distance = editDistance(needle, hay);
    if (distance <= limit) scored.push({ candidate, distance });
  }
  return scored
    .sort((a, b) => a.distance - b.distance)
    .slice(0, max)
    .map((entry) => entry.candidate);
}

/** `did you mean "a" or "b"?`, or undefined when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const found = closest(input, candidates);
  if (found.length === 0) return undefined;
  return `did you mean ${found.map((name) => JSON.stringify(name)).join(' or ')}?`;
}

/** Edit distance where swapping two neighbours counts as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] as number) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

import { readFile } from 'node:fs/promises';

// A plain push's journal as the simulator reads it (invariant 7): what the push itself recorded of each batch.

/**
 * The batches a plain push started after it knew of an uncertain answer (a 5xx or a reset after the body was
 * sent), as its own journal tells: a batch's \`sending\` line (fsynced before its POST starts, and checked
 * again after the fsync) written after the uncertain outcome's line, and the batch then answered. The
 * emulator's log cannot tell it: a request the client sent before it had read the 5xx may be logged after
 * the 5xx was answered, by any margin a loaded machine puts between the two.
 */
export async function startedAfterUncertain(journal: string): Promise<string[]> {
  const text = await readFile(journal, 'utf8').catch(() => '');
  const entries = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { batch?: number; part?: string; state?: string })
    .filter((entry) => entry.batch !== undefined && entry.state !== undefined);
  const first = entries.findIndex((entry) => entry.state === 'uncertain');
  if (first < 0) return [];
  const name = (entry: { batch?: number; part?: string }): string => `${entry.batch}${entry.part ? `.${entry.part}` : ''}`;
  const startedLate = new Set(
    entries
      .slice(first + 1)
      .filter((entry) => entry.state === 'sending')
      .map(name),
  );
  const answered = entries.filter((entry, index) => index > first && ['accepted', 'uncertain', 'rejected'].includes(entry.state!));
  return [...new Set(answered.map(name).filter((batch) => startedLate.has(batch)))];
}

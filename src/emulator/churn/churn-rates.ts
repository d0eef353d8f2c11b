/*
 * `--churn SPEC`: a comma list of KIND:RATE/UNIT (KIND add, update, delete or rerun; RATE a number; UNIT s, m
 * or h, per second, minute or hour), and optionally table=NAME (a table's name or ID) to change only that
 * table. A rerun is "re-run column" on one row: its action cells run again, moving updatedAt.
 * Example: "add:5/s,update:2/s,delete:0.1/s,rerun:1/m".
 */

export const CHURN_KINDS = ['add', 'update', 'delete', 'rerun'] as const;
export type ChurnKind = (typeof CHURN_KINDS)[number];

export interface ChurnRates {
  /** Changes per second of each kind. */
  perSecond: Record<ChurnKind, number>;
  /** Only tables with this name or ID. */
  table?: string;
}

export class ChurnSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChurnSpecError';
  }
}

/** Changes of one kind per second, at most. */
export const CHURN_MAX_RATE = 10_000;

const RATE = /^(add|update|delete|rerun):(\d+(?:\.\d+)?|\.\d+)\/(s|m|h)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

export function parseChurnRates(text: string): ChurnRates {
  const spec: ChurnRates = { perSecond: { add: 0, update: 0, delete: 0, rerun: 0 } };
  const seen = new Set<string>();
  for (const raw of text.split(',').map((part) => part.trim())) {
    if (raw === '') continue;
    if (raw.startsWith('table=')) {
      const name = raw.slice('table='.length).trim();
      if (name === '' || spec.table !== undefined) throw new ChurnSpecError(`churn spec item "${raw}": give table=NAME once, with a name`);
      spec.table = name;
      continue;
    }
    const match = RATE.exec(raw);
    if (!match) {
      throw new ChurnSpecError(
        `churn spec item "${raw}" is not valid: write KIND:RATE/UNIT with KIND add, update, delete or rerun and UNIT s, m or h (e.g. "add:5/s,update:2/s,delete:0.1/s,rerun:1/m"), or table=NAME`,
      );
    }
    const kind = match[1] as ChurnKind;
    if (seen.has(kind)) throw new ChurnSpecError(`churn spec: ${kind} is given more than once`);
    seen.add(kind);
    const rate = Number(match[2]) / UNIT_SECONDS[match[3] as keyof typeof UNIT_SECONDS];
    if (rate > CHURN_MAX_RATE) throw new ChurnSpecError(`churn spec item "${raw}": at most ${CHURN_MAX_RATE} a second`);
    spec.perSecond[kind] = rate;
  }
  if (seen.size === 0) throw new ChurnSpecError(`churn spec "${text}" names no change: give add, update, delete or rerun (e.g. "add:5/s")`);
  return spec;
}

import { CELL_MAX_CHARS } from '../service/index.js';

export type CutKind = 'service' | 'spreadsheet';

export interface TallyJSON {
  service: Record<string, number>;
  spreadsheet: Record<string, number>;
}

/**
 * Cut cells per record key: cut by the service at 200 characters (`isTruncated`), or cut by us at
 * the spreadsheet limit under --excel. Kept in the checkpoint so a resumed export warns about all.
 */
export class TruncationTally {
  private readonly counts: Record<CutKind, Map<string, number>> = { service: new Map(), spreadsheet: new Map() };

  note(kind: CutKind, key: string, count = 1): void {
    const map = this.counts[kind];
    map.set(key, (map.get(key) ?? 0) + count);
  }

  get total(): number {
    let sum = 0;
    for (const map of Object.values(this.counts)) for (const count of map.values()) sum += count;
    return sum;
  }

  addAll(other: TruncationTally): void {
    for (const kind of ['service', 'spreadsheet'] as const) {
      for (const [key, count] of other.counts[kind]) this.note(kind, key, count);
    }
  }

  toJSON(): TallyJSON {
    return { service: Object.fromEntries(this.counts.service), spreadsheet: Object.fromEntries(this.counts.spreadsheet) };
  }

  static fromJSON(json: TallyJSON): TruncationTally {
    const tally = new TruncationTally();
    for (const kind of ['service', 'spreadsheet'] as const) {
      for (const [key, count] of Object.entries(json[kind])) tally.note(kind, key, count);
    }
    return tally;
  }

  /** One line per kind of cut, e.g. `12 cells were cut by the service at 200 characters: "Notes" 9, "Address" 3`. */
  summary(spreadsheetLimit: number): string[] {
    const lines: string[] = [];
    const describe = (kind: CutKind, what: string): void => {
      const entries = [...this.counts[kind]].sort((a, b) => b[1] - a[1]);
      const cells = entries.reduce((sum, [, count]) => sum + count, 0);
      if (cells === 0) return;
      const perColumn = entries.map(([key, count]) => `${JSON.stringify(key)} ${count.toLocaleString('en-US')}`).join(', ');
      lines.push(`${cells.toLocaleString('en-US')} ${cells === 1 ? 'cell was' : 'cells were'} ${what}: ${perColumn}`);
    };
    describe('service', `cut by the service at ${CELL_MAX_CHARS} characters (the cut text was kept)`);
    describe('spreadsheet', `cut at ${spreadsheetLimit.toLocaleString('en-US')} characters for spreadsheet programs`);
    return lines;
  }
}

/**
 * The keys of the records a keyed push puts in the table, in input order (the rows --wait settled
 * waits for and -o writes): every record with a key of its own, less those rejected.
 */
export class PushedKeys {
  private readonly keys: string[] = [];
  private readonly records: number[] = [];
  private readonly rejected = new Set<number>();

  add(record: number, key: string): void {
    this.records.push(record);
    this.keys.push(key);
  }

  reject(records: Iterable<number>): void {
    for (const record of records) this.rejected.add(record);
  }

  /** Rejections another pass over the same input saw. */
  rejectAll(other: PushedKeys): void {
    this.reject(other.rejected);
  }

  /** The first `count` keys: enough to tell how densely they pack into lookups. */
  sample(count: number): string[] {
    return this.keys.slice(0, count);
  }

  get count(): number {
    return this.keys.length;
  }

  /** The keys, in input order, of the records not rejected. */
  wanted(): string[] {
    if (this.rejected.size === 0) return this.keys;
    return this.keys.filter((_key, i) => !this.rejected.has(this.records[i]!));
  }
}

/** Why a sending run stopped starting batches. */
export type StopReason =
  | { kind: 'uncertain'; detail: string }
  | { kind: 'interrupted' }
  /** 429s or refused connections beyond --max-retries */
  | { kind: 'gave-up'; detail: string }
  /** an answer that takes nothing in and will not change on retry (404, 401, a redirect…) */
  | { kind: 'refused'; status?: number; detail: string }
  /** the journal could not be written, or the input failed while streaming */
  | { kind: 'failed'; error: unknown };

/**
 * The reasons a sending run stops, in the order they came. The first one aborts `signal`: a batch
 * waiting for a rate-limit slot or a retry is then not sent.
 */
export class RunStops {
  readonly reasons: StopReason[] = [];
  private readonly halt = new AbortController();

  get signal(): AbortSignal {
    return this.halt.signal;
  }

  get halted(): boolean {
    return this.halt.signal.aborted;
  }

  stop(reason: StopReason): void {
    this.reasons.push(reason);
    this.halt.abort(reason);
  }

  /** Whether `error` is this run's stop, ending a wait for a slot or a retry. */
  cutShort(error: unknown): boolean {
    return this.halted && error === this.halt.signal.reason;
  }
}

import type { Database } from './engine.js';

/**
 * How long a DuckDB call gets to stop once interrupted. Execution stops at once (DuckDB checks between
 * data chunks), planning within a second or two; the parser never checks, and a pathological
 * statement can keep it busy for minutes: such a call is given up (see Database.abandon).
 */
const STOP_GRACE_MS = 2000;
const INTERRUPT_EVERY_MS = 50;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

/** A DuckDB call that `signal` stops: the way every call of a statement is made (see interruptible). */
export type Step = <T>(call: () => Promise<T>) => Promise<T>;

/**
 * Makes each DuckDB call of `db` stoppable by `signal` (Ctrl-C, a time limit): when it aborts, DuckDB is
 * interrupted and the call fails with the signal's reason, whether DuckDB then fails it, ends it early
 * (a result stream just ends) or, past the grace, has not returned at all (the call is abandoned).
 */
export function interruptible(db: Database, signal: AbortSignal): Step {
  return async <T>(call: () => Promise<T>): Promise<T> => {
    signal.throwIfAborted();
    const running = settle(call());
    let onAbort = (): void => undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const first = await Promise.race([running, aborted]);
    signal.removeEventListener('abort', onAbort);
    if (first !== 'aborted' && !signal.aborted) {
      if (first.ok) return first.value;
      throw first.error;
    }
    if (first === 'aborted') {
      db.interrupt();
      // again and again: an interrupt that comes before DuckDB has begun the statement is forgotten when it begins
      const again = setInterval(() => db.interrupt(), INTERRUPT_EVERY_MS);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), STOP_GRACE_MS)));
      const outcome = await Promise.race([running, grace]);
      clearInterval(again);
      clearTimeout(timer);
      if (outcome === 'stuck') db.abandon();
    }
    throw signal.reason;
  };
}

import { expect } from 'vitest';

/** The error of class `kind` that `fn` throws; fails the test if it throws nothing or something else. */
export function thrownBy<E extends Error>(kind: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return error as E;
  }
  throw new Error(`expected a ${kind.name}, but nothing was thrown`);
}

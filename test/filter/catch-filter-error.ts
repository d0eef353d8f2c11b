import { expect } from 'vitest';
import { FilterError } from '../../src/filter/errors.js';

/** The FilterError that `fn` throws; fails the test if it throws nothing or something else. */
export function catchFilterError(fn: () => unknown): FilterError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(FilterError);
    return error as FilterError;
  }
  throw new Error('expected a FilterError, but nothing was thrown');
}

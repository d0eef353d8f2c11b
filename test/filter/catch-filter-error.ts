import { FilterError } from '../../src/filter/errors.js';
import { thrownBy } from '../helpers/thrown.js';

/** The FilterError that `fn` throws; fails the test if it throws nothing or something else. */
export const catchFilterError = (fn: () => unknown): FilterError => thrownBy(FilterError, fn);

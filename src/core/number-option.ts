import { UsageError } from './errors.js';

// Parsers of numeric flags and settings: a bad value is a UsageError (exit 2) that says what was expected.

export function parseIntegerOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
}

/** A number as people write it: digits, a decimal point, an exponent (never `0x1`, `0b1`, `Infinity`). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function parseNumberOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw: string): number => {
    const value = Number(raw);
    if (!DECIMAL.test(raw.trim()) || !Number.isFinite(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
}

/**
 * A share of something (`--max-share`): a decimal above 0 and at most 1 (`0.3`), or a percentage above 0%
 * and at most 100% (`30%`), as the checks file writes shares.
 */
export function parseShareOption(name: string): (raw: string) => number {
  return (raw: string): number => {
    const text = raw.trim();
    const percent = text.endsWith('%');
    const digits = (percent ? text.slice(0, -1) : text).trim();
    const value = /^(\d+\.?\d*|\.\d+)$/.test(digits) ? Number(digits) / (percent ? 100 : 1) : NaN;
    if (!(value > 0 && value <= 1)) {
      throw new UsageError(`${name} must be a share above 0 and at most 1: a decimal (0.3) or a percentage (30%) (got "${raw}")`);
    }
    return value;
  };
}

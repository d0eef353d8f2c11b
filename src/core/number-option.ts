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

export function parseNumberOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
}

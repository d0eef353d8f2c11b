import { OPERATORS, type Operator } from '../service/index.js';

// How written text reads as an operator, a number or a boolean: shared by the parser, --filter
// and the typing by column.

/** An operator in any case → the service's spelling. */
export function operatorNamed(text: string): Operator | undefined {
  const folded = text.toLowerCase();
  return OPERATORS.find((operator) => operator.toLowerCase() === folded);
}

const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function isNumberText(text: string): boolean {
  return NUMBER.test(text);
}

/** `true`/`false` in any case; undefined for anything else. */
export function booleanOf(text: string): boolean | undefined {
  const folded = text.toLowerCase();
  if (folded === 'true') return true;
  if (folded === 'false') return false;
  return undefined;
}

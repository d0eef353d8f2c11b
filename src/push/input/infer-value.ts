// `--types infer`: CSV/TSV text that is plainly a number or a boolean becomes one; anything that would
// change when written back (leading zeros, `-0`, digits past double precision, `TRUE`) stays text.

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const MAX_EXACT_DIGITS = 15;

export function inferValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text.length > MAX_EXACT_DIGITS + 2 || !NUMBER.test(text) || text === '-0') return text;
  const digits = text
    .replace(/^-/, '')
    .replace('.', '')
    .replace(/^0+(?=\d)/, '');
  return digits.length <= MAX_EXACT_DIGITS ? Number(text) : text;
}

/**
 * Splits a shell command line into words, honouring quotes and backslashes, and stops at the
 * first unquoted operator (| > < ; & #): enough to read the example commands in our docs.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|><;&'.includes(ch) || (ch === '#' && !inWord)) {
      break;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (inWord) words.push(word);
  return words;
}

/** The arguments after `tds` in a documented command line, or undefined when it does not run tds. */
export function tdsArguments(line: string): string[] | undefined {
  // output shown beside the commands (a table row, a cut JSON value) is not split into words
  if (!/^\s*(\$\s+)?([A-Z_][A-Z0-9_]*=\S*\s+)*(npx\s+)?tds(\s|$)/.test(line)) return undefined;
  const words = shellWords(line.replace(/^\s*\$\s+/, ''));
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) words.shift();
  if (words[0] === 'npx') words.shift();
  if (words[0] !== 'tds') return undefined;
  return words.slice(1);
}

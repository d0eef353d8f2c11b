// @ts-check
// The glossary (docs/development.md "Glossary: one word, one meaning") enforced on names: an identifier
// made of a word the glossary retires, or gives another sense, is refused where that sense is not the
// code's: glossaryConfig (below, in eslint.config.js) says which words where; test/lint/glossary-rule.test.ts
// shows what it refuses.

/**
 * The words of an identifier, lower case: `limiterWaitMs` → limiter, wait, ms; `SYNC_ID` → sync, id.
 * @param {string} name
 * @returns {string[]}
 */
export function identifierWords(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** @type {import('eslint').Rule.RuleModule} */
export const retiredWords = {
  meta: {
    type: 'suggestion',
    docs: { description: 'refuse identifiers made of words the glossary retires' },
    schema: [
      {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'each retired word, and the word(s) the glossary uses instead',
      },
    ],
    messages: { retired: '"{{name}}": the glossary does not use "{{word}}" here; say {{instead}}' },
  },
  create(context) {
    /** @type {Record<string, string>} */
    const words = context.options[0] ?? {};
    /** @param {import('estree').Identifier | import('estree').PrivateIdentifier} node */
    const check = (node) => {
      const word = identifierWords(node.name).find((part) => Object.hasOwn(words, part));
      if (word !== undefined) context.report({ node, messageId: 'retired', data: { name: node.name, word, instead: words[word] } });
    };
    return { Identifier: check, PrivateIdentifier: check };
  },
};

/** Retired everywhere: the limiter spaces requests (*timings*, *limiter*); only an action cell settles. */
export const RETIRED_EVERYWHERE = {
  pace: '"limiter" or "timings"',
  paced: '"limiter" or "timings"',
  paces: '"limiter" or "timings"',
  pacing: '"limiter" or "timings"',
  settle: '"commit", "reconcile" or "flush" (settled is an action cell\'s)',
  settles: '"commit", "reconcile" or "flush" (settled is an action cell\'s)',
  settling: '"commit", "reconcile" or "flush" (settled is an action cell\'s)',
};

/** Outside action-cell code: a batch due and not sent is *unsent*, a request not answered *in flight*. */
export const RETIRED_OUTSIDE_ACTION_CELLS = {
  pending: '"unsent", "in flight", "unfinished" or "held" (pending is an action cell\'s)',
};

/** In the tests: the emulator and program set-up is the *harness* (bench/ is the benchmarks). */
export const RETIRED_IN_TESTS = { bench: '"harness" (bench/ is the benchmarks)' };

const glossary = { rules: { 'retired-words': retiredWords } };

/**
 * Where each word is retired: eslint.config.js takes these blocks as they are.
 * @type {import('eslint').Linter.Config[]}
 */
export const glossaryConfig = [
  {
    files: ['src/**', 'test/**', 'bench/**', 'scripts/**'],
    ignores: ['scripts/eslint-glossary.js'],
    plugins: { glossary },
    rules: { 'glossary/retired-words': ['error', RETIRED_EVERYWHERE] },
  },
  {
    // *pending* is an action cell's: outside the code of action cells, what waits says what it is
    files: ['src/**'],
    ignores: ['src/emulator/**', 'src/mirror/**', 'src/push/wait/**', 'src/commands/emulator.ts'],
    plugins: { glossary },
    rules: { 'glossary/retired-words': ['error', { ...RETIRED_EVERYWHERE, ...RETIRED_OUTSIDE_ACTION_CELLS }] },
  },
  {
    files: ['test/**'],
    plugins: { glossary },
    rules: { 'glossary/retired-words': ['error', { ...RETIRED_EVERYWHERE, ...RETIRED_IN_TESTS }] },
  },
];

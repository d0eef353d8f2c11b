import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { glossaryConfig, identifierWords } from '../../scripts/eslint-glossary.js';

// The glossary enforced on names (scripts/eslint-glossary.js, in eslint.config.js): its blocks, run over
// snippets as if they were files of src/ and test/ (parsed without type information, which is slow).

const eslint = new ESLint({
  cwd: fileURLToPath(new URL('../../', import.meta.url)),
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...glossaryConfig],
});

async function refused(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === 'glossary/retired-words').map((message) => message.message);
}

describe('the glossary on names', () => {
  it.each([
    ['limiterWaitMs', ['limiter', 'wait', 'ms']],
    ['SYNC_ID_KEY', ['sync', 'id', 'key']],
    ['HTMLTable', ['html', 'table']],
    ['pacedMs', ['paced', 'ms']],
  ])('splits %s into its words', (name, words) => {
    expect(identifierWords(name)).toEqual(words);
  });

  it('refuses "pace" and "settle" in any name, and leaves words that only contain them alone', async () => {
    const code =
      'export const pacedMs = 1;\nexport async function settle(): Promise<void> {}\nexport const workspace = 2;\nexport const settled = 3;\n';
    expect(await refused(code, 'src/http/snippet.ts')).toEqual([
      '"pacedMs": the glossary does not use "paced" here; say "limiter" or "timings"',
      expect.stringMatching(/^"settle": the glossary does not use "settle" here/),
    ]);
  });

  it('refuses "pending" outside the code of action cells, and takes it there', async () => {
    const code = 'export const pending = 1;\n';
    expect(await refused(code, 'src/push/deliver/snippet.ts')).toEqual([
      expect.stringMatching(/^"pending": the glossary does not use "pending" here/),
    ]);
    expect(await refused(code, 'src/emulator/actions/snippet.ts')).toEqual([]);
  });

  it('refuses "bench" for a test\'s harness', async () => {
    expect(await refused('export const bench = 1;\n', 'test/e2e/snippet.test.ts')).toEqual([
      expect.stringMatching(/^"bench": .*say "harness"/),
    ]);
  });
});

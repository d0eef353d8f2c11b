// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { glossaryConfig } from './scripts/eslint-glossary.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      'max-depth': ['error', 4],
      // Size measured with judgment: more than five positional parameters want an options object, and a
      // file over 400 lines of code most likely holds more than one concept (a concept is not cut to fit).
      'max-params': ['error', 5],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'no-constant-condition': ['error', { checkLoops: false }],
      // TypeScript checks names (bench/ is JavaScript with checkJs).
      'no-undef': 'off',
      // Control characters in patterns are how terminal output is cleaned of them.
      'no-control-regex': 'off',
    },
  },
  ...glossaryConfig,
  {
    // the single executable's main script: CommonJS, as Node's single-executable applications require
    files: ['sea/**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      'max-lines-per-function': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
);

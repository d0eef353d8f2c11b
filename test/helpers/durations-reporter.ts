import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

// Where the suite's time goes (`npm run test:durations`): after a run, each test file's duration (its
// tests and hooks, and apart from it the import of the file) with its tests', slowest first, written to
// test-durations.json (git-ignored); the slowest files are printed too.

const OUTPUT = 'test-durations.json';
const PRINTED = 15;

interface FileDuration {
  file: string;
  project: string;
  /** The file's tests and hooks, ms. */
  ms: number;
  /** The file's import (what it imports, and its suites' callbacks), ms. */
  importMs: number;
  tests: { name: string; ms: number }[];
}

export default class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map(fileDuration).sort((a, b) => b.ms - a.ms);
    writeFileSync(OUTPUT, `${JSON.stringify({ at: new Date().toISOString(), files }, null, 2)}\n`);
    const total = files.reduce((sum, file) => sum + file.ms, 0);
    const lines = files.slice(0, PRINTED).map((file) => `${seconds(file.ms).padStart(8)}  ${file.file}`);
    process.stderr.write(
      `\nslowest test files (of ${files.length}, ${seconds(total)} in all, across the workers):\n${lines.join('\n')}\nevery file and test: ${OUTPUT}\n`,
    );
  }
}

function fileDuration(module: TestModule): FileDuration {
  const diagnostic = module.diagnostic();
  const tests = [...module.children.allTests()]
    .map((test) => ({ name: test.fullName, ms: Math.round(test.diagnostic()?.duration ?? 0) }))
    .sort((a, b) => b.ms - a.ms);
  return {
    file: relative(process.cwd(), module.moduleId),
    project: module.project.name,
    ms: Math.round(diagnostic.duration),
    importMs: Math.round(diagnostic.collectDuration),
    tests,
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

import { relative } from 'node:path';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

// CI's log is read from its end (a failed run shows only its last lines), so after the summary this
// names, last of all, each test that failed (with its error's first lines) and each that passed only on
// its retry (a flaky one, to be fixed rather than retried), and each file that failed outside a test.

const ERROR_LINES = 4;

export default class OutcomeReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    const lines: string[] = [];
    for (const module of modules) {
      const file = relative(process.cwd(), module.moduleId);
      for (const error of module.errors()) lines.push(`failed outside a test: ${file}`, ...firstLines(error));
      for (const test of module.children.allTests()) {
        const name = `${file} > ${test.fullName}`;
        const result = test.result();
        if (result.state === 'failed') lines.push(`failed: ${name}`, ...(result.errors ?? []).slice(0, 1).flatMap(firstLines));
        else if (result.state === 'passed' && test.diagnostic()?.flaky) lines.push(`flaky (passed on its retry): ${name}`);
      }
    }
    for (const error of unhandled) lines.push('unhandled error:', ...firstLines(error));
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

function firstLines(error: SerializedError): string[] {
  return `${error.name ?? 'Error'}: ${error.message ?? ''}`
    .split('\n')
    .slice(0, ERROR_LINES)
    .map((line) => `    ${line}`);
}

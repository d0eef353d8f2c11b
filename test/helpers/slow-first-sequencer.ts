import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The order the workers take the files in. Vitest runs the files that took longest last time first, but a
// fresh checkout (CI's) has no such record and runs the largest files first: a short file with long tests
// (the simulator's, 40 lines and over a minute) came last and ran alone at the end. The files that take
// longest (`npm run test:durations`, the slowest of a run on 2 cores) start first whatever the record;
// the others follow in vitest's order. Only the order depends on this list: a file missing from it or
// named here and gone changes nothing else.

const SLOWEST = [
  'test/sim/sim.test.ts',
  'test/e2e/sync-freshness-verify.test.ts',
  'test/e2e/sync-freshness.test.ts',
  'test/lake/lake.test.ts',
  'test/e2e/demo.test.ts',
  'test/lake/lake-retyped.test.ts',
  'test/e2e/sync-schema-changes.test.ts',
  'test/e2e/sync-follow-stale.test.ts',
  'test/e2e/sync-changes-delivery.test.ts',
  'test/check/check-notify.test.ts',
  'test/e2e/push-key-latency.test.ts',
  'test/mirror/killed-passes.test.ts',
  'test/e2e/sync-history-kill.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = SLOWEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? SLOWEST.length : at;
    };
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

import { describe, expect } from 'vitest';
import { createPrng } from '../../src/emulator/seed/prng.js';
import { test as it } from '../helpers/emulator-fixture.js';

// A signal that comes once a sync has written its summary, while the process ends, never ends it by
// the signal (a shell would see -2 or -15, not an exit code): the sync's work is done, so it exits 0,
// or 130/143 when a second signal ended it at once before that. Node closes its signal handlers while
// an emptied event loop ends the process, some milliseconds before the process is gone: a signal in
// between used to kill it. Each try sends its first signal after a seeded number of timer turns once
// the summary is on stderr, then one more every turn until the process has ended.

const TRIES = 2;
/** The most timer turns before a try's first signal. */
const MOST_TURNS = 8;
const SUMMARY = /^synced .*\n {2}salaries +incremental .*\n/m;

describe('tds sync: a signal as the process ends after the summary', () => {
  it.for([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s from the summary on: an exit code every time (0, or %i), never death by the signal',
    { timeout: 180_000 },
    async ([signal, interrupted], { open }) => {
      const h = await open();
      const first = await h.tds(['sync', 'Salaries']);
      expect(first.code, first.stderr).toBe(0);
      const random = createPrng(signal === 'SIGINT' ? 29 : 143);
      const ends: Array<{ code: number | null; signal: NodeJS.Signals | null; sent: number }> = [];
      for (let i = 0; i < TRIES; i++) {
        const sync = h.spawn(['sync', 'Salaries']);
        let turns = Math.floor(random() * MOST_TURNS);
        let sent = 0;
        let ended = false;
        const tick = (): void => {
          if (ended) return;
          if (turns-- <= 0) {
            sync.child.kill(signal);
            sent += 1;
          }
          setTimeout(tick, 1);
        };
        const onData = (): void => {
          if (!SUMMARY.test(sync.stderr())) return;
          sync.child.stderr!.off('data', onData);
          tick();
        };
        sync.child.stderr!.on('data', onData);
        const end = await sync.ended;
        ended = true;
        expect(sync.stderr(), `try ${i}`).toMatch(SUMMARY);
        ends.push({ ...end, sent });
      }
      // some tries were signalled (the process may end before a late first signal)
      expect(ends.filter((end) => end.sent > 0).length).toBeGreaterThan(0);
      expect(ends.filter((end) => end.signal !== null)).toEqual([]);
      for (const end of ends) expect([0, interrupted]).toContain(end.code);
    },
  );
});

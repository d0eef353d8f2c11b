// The one time scale of the suite. Every test that meets rate limits, retry-after or the intake window
// runs them this many times faster, on both sides alike: the emulator (`--rate-scale`, or
// TDS_RATE_SCALE, which `tds emulator` reads too) and the client (TDS_RATE_SCALE). No test may pass
// because one side runs faster than the other. The other scales below are this one's, for a reason each.

export const RATE_SCALE = 100;

/** A duration of the service (a rate window, a retry-after, a poll interval) as the scaled run sees it. */
export const scaled = (serviceMs: number): number => serviceMs / RATE_SCALE;

/**
 * Unit tests of the retry loop and the senders, with no emulator and no process: ten times faster
 * still, so a retry-after of 1 s costs 1 ms and the 10 s default 10 ms.
 */
export const UNIT_RATE_SCALE = RATE_SCALE * 10;

/**
 * Tests that run into a rate limit on purpose: a fifth of the suite's scale, so each window is long
 * enough that the limit, not timer slop on a loaded machine, decides what is sent when.
 */
export const LIMITED_RATE_SCALE = RATE_SCALE / 5;

/**
 * The intake-window unit tests, on real timers (quiet period 167 ms, longest window 1.2 s): long enough
 * that whether a lookup comes before or after a row's arrival is not left to timer jitter.
 */
export const INTAKE_RATE_SCALE = (RATE_SCALE * 3) / 10;

// The one time scale of the suite. Every test that meets rate limits, retry-after or the intake window
// runs them this many times faster, on both sides alike: the emulator (`--rate-scale`, or
// TDS_RATE_SCALE, which `tds emulator` reads too) and the client (TDS_RATE_SCALE). No test may pass
// because one side runs faster than the other.

export const RATE_SCALE = 100;

/** A duration of the service (a rate window, a retry-after, a poll interval) as the scaled run sees it. */
export const scaled = (serviceMs: number): number => serviceMs / RATE_SCALE;

import { describe, expect, it } from 'vitest';
import { RunStops } from '../../../src/push/deliver/stop-reason.js';

describe('RunStops', () => {
  it('keeps every reason in order; the first one aborts the signal', () => {
    const stops = new RunStops();
    expect(stops.halted).toBe(false);
    stops.stop({ kind: 'uncertain', detail: 'HTTP 500' });
    stops.stop({ kind: 'interrupted' });
    expect(stops.halted).toBe(true);
    expect(stops.signal.reason).toEqual({ kind: 'uncertain', detail: 'HTTP 500' });
    expect(stops.reasons).toEqual([{ kind: 'uncertain', detail: 'HTTP 500' }, { kind: 'interrupted' }]);
  });

  it('tells its own stop from another error that ended a wait', () => {
    const stops = new RunStops();
    const other = new Error('disk full');
    expect(stops.cutShort(other)).toBe(false);
    stops.stop({ kind: 'interrupted' });
    expect(stops.cutShort(stops.signal.reason)).toBe(true);
    expect(stops.cutShort(other)).toBe(false);
  });
});

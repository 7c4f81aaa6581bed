/**
 * The phase tracker names what a run waits for: the item in flight the longest, with how many
 * others are in flight, and nothing once none is.
 */
import { describe, expect, it } from 'vitest';
import { PhaseTracker, type ProgressEvent } from '../../src/engine/progress.js';
import { progressLine } from '../../src/engine/render/progress.js';

function tracked(): { tracker: PhaseTracker; last: () => ProgressEvent | undefined } {
  const events: ProgressEvent[] = [];
  const tracker = new PhaseTracker((event) => events.push(event), 'applying', 'operation', 3);
  return { tracker, last: () => events[events.length - 1] };
}

describe('PhaseTracker', () => {
  it('names the oldest item in flight, not the last started, and drops each as it is done', () => {
    const { tracker, last } = tracked();
    tracker.started({ address: 'a' });
    tracker.started({ address: 'b', label: 'Bee' });
    tracker.started({ address: 'c' });
    expect(last()).toEqual({ type: 'advance', phase: 'applying', unit: 'operation', done: 0, total: 3, current: { address: 'a' }, inFlight: 3 });
    tracker.step('b');
    expect(last()).toMatchObject({ done: 1, current: { address: 'a' }, inFlight: 2 });
    tracker.step('a');
    expect(last()).toMatchObject({ done: 2, current: { address: 'c' }, inFlight: 1 });
    tracker.step('c');
    expect(last()).toEqual({ type: 'advance', phase: 'applying', unit: 'operation', done: 3, total: 3 });
  });

  it('counts steps of items it was not told of (reads) without naming any', () => {
    const { tracker, last } = tracked();
    tracker.step();
    expect(last()).toEqual({ type: 'advance', phase: 'applying', unit: 'operation', done: 1, total: 3 });
  });
});

describe('progressLine', () => {
  it('says how many others are in flight beside the one named', () => {
    const view = { phase: 'applying', unit: 'operation', done: 1, total: 5 } as const;
    expect(progressLine({ ...view, current: { address: 'role[r1]', label: 'Analyst' }, inFlight: 1 }, 4000)).toBe('Applying: 1 of 5 operations, now role[r1] — Analyst (4s)');
    expect(progressLine({ ...view, current: { address: 'role[r1]' }, inFlight: 4 }, 65_000)).toBe('Applying: 1 of 5 operations, now role[r1] and 3 more (1m 05s)');
    expect(progressLine(view, 0)).toBe('Applying: 1 of 5 operations (0s)');
  });
});

import { describe, expect, it } from 'vitest';
import { instanceViews, instanceView } from '../../../testing/builders.js';
import { CandidatePositions } from './candidate-positions.js';

describe('CandidatePositions', () => {
  it('knows a list only once it has come twice in a row, then while its ids stay in order', () => {
    const positions = new CandidatePositions();
    const pool = instanceViews(3);
    expect(positions.of(pool)).toBeUndefined();
    expect(positions.of([...pool])).toEqual(new Map([['i0', 0], ['i1', 1], ['i2', 2]]));
    // New view objects of the same instances, as a router builds for every decision.
    expect(positions.of(instanceViews(3))?.get('i2')).toBe(2);
  });

  it('forgets a changed list, and learns the new one when it comes again', () => {
    const positions = new CandidatePositions();
    const pool = instanceViews(3);
    positions.of(pool);
    positions.of(pool);
    const reordered = [pool[2]!, pool[0]!, pool[1]!];
    expect(positions.of(reordered)).toBeUndefined();
    expect(positions.of(reordered)?.get('i2')).toBe(0);
    expect(positions.of(pool.slice(1))).toBeUndefined();
  });

  it('never rebuilds for lists that alternate (two models), and answers nothing when an id repeats', () => {
    const positions = new CandidatePositions();
    const a = instanceViews(2);
    const b = [instanceView({ instanceId: 'b0' })];
    for (let i = 0; i < 4; i++) expect(positions.of(i % 2 === 0 ? a : b)).toBeUndefined();
    const twice = [...a, a[0]!];
    positions.of(twice);
    expect(positions.of(twice)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { RecentPublishes } from './recent-publishes.js';

describe('RecentPublishes', () => {
  it('gives back what was published within the window, oldest first, once', () => {
    const recent = new RecentPublishes(1_000);
    recent.add('a', '1', undefined, 0);
    recent.add('b', '2', undefined, 500);
    recent.add('c', '3', undefined, 1_400);
    // The window reaches back to 450: a (at 0) has left it.
    expect(recent.take(1_450).messages.map((m) => m.subject)).toEqual(['b', 'c']);
    expect(recent.take(1_450).messages).toEqual([]);
  });

  it('keeps only the window while many are published (bounded memory)', () => {
    const recent = new RecentPublishes(100);
    for (let t = 0; t < 100_000; t++) recent.add('s', 'x', undefined, t);
    expect(recent.size).toBeLessThanOrEqual(101);
    expect(recent.take(99_999).messages).toHaveLength(101);
  });

  it('reaches back from the loss, not from the reconnect: a reconnect slower than the window still sends the last messages before the loss', () => {
    const recent = new RecentPublishes(2_000);
    recent.add('old', '1', undefined, 0);
    recent.add('before-loss', '2', undefined, 9_500);
    recent.lost(10_000);
    recent.add('during', '3', undefined, 11_000);
    // Back at 12,200 (2.2 s after the loss): the window is [8,000, 12,200], so 'before-loss'
    // (written 0.5 s before the loss) is sent again; measured from the reconnect it would have
    // started at 10,200 and missed it.
    expect(recent.take(12_200).messages.map((m) => m.subject)).toEqual(['before-loss', 'during']);
    // Connected again: the window moves with the clock once more.
    recent.add('after', '4', undefined, 13_000);
    expect(recent.take(16_000).messages).toEqual([]);
  });

  it('keeps at most maxDuringOutage messages while the connection is away, and says how many it did not', () => {
    const recent = new RecentPublishes(2_000, 3);
    recent.add('a', '1', undefined, 0);
    recent.lost(100);
    for (let t = 0; t < 10; t++) recent.add(`o${t}`, 'x', undefined, 200 + t);
    // 'a' plus two from the outage fill the cap of 3; the other 8 are left to the client's buffer.
    expect(recent.take(60_000)).toEqual({ messages: expect.arrayContaining([expect.objectContaining({ subject: 'a' })]) as unknown, notKept: 8 });
    expect(recent.size).toBe(0);
  });
});

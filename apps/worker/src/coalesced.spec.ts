import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Coalesced } from './coalesced.js';

describe('Coalesced', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs at once, then folds every request within the interval into one run at its end', () => {
    let runs = 0;
    const coalesced = new Coalesced(100, () => runs++, () => Date.now());
    coalesced.request();
    expect(runs).toBe(1);
    for (let i = 0; i < 10_000; i++) coalesced.request();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1_000);
    expect(runs).toBe(2);
    coalesced.request(); // the interval has passed: at once
    expect(runs).toBe(3);
  });

  it('stop cancels a pending run', () => {
    let runs = 0;
    const coalesced = new Coalesced(100, () => runs++, () => Date.now());
    coalesced.request();
    coalesced.request();
    coalesced.stop();
    vi.advanceTimersByTime(500);
    expect(runs).toBe(1);
  });
});

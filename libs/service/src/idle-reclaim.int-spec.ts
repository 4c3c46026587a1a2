import { describe, expect, it } from 'vitest';
import { reclaimWhenIdle } from './idle-reclaim.js';

// Real timers and the real event loop's utilization (eight 500 ms checks, 4 s of quiet), hence an integration spec.
describe('reclaimWhenIdle', () => {
  it('collects once in the first quiet spell after start, whatever the heap held at start', async () => {
    const lines: string[] = [];
    const stop = reclaimWhenIdle((line) => lines.push(line));
    try {
      const until = Date.now() + 10_000;
      while (lines.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lines[0]).toMatch(/^quiet after load: heap collected, \d+ → \d+ MiB$/);
      // Then the mark is the heap after that collection: a quiet process is not collected again.
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      expect(lines).toHaveLength(1);
    } finally {
      stop();
    }
  });
});

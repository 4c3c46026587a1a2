import { describe, expect, it } from 'vitest';
import { compareEngine } from './compare-engine.js';
import { comparisonTable } from './compare-reports.js';
import { engineSection } from './engine-section.js';

const live = engineSection(
  [
    { instance: 'w-r0', preemptions: 4, kvAllocationFailures: 10, cacheHitRate: 0.5 },
    { instance: 'w-r1', preemptions: 0, kvAllocationFailures: 0, cacheHitRate: 0.3 },
  ],
  'prompt-tokens',
);
const twin = engineSection([{ instance: 'twin-r0', preemptions: 6, kvAllocationFailures: 5, cacheHitRate: 0.6 }], 'kv-blocks');

describe('compareEngine', () => {
  it('lines up the cluster preemptions, failures and cache-hit rate, with changes against the first', () => {
    const rows = compareEngine([{ engine: live }, { engine: live }]);
    expect(rows.map((r) => r.metric)).toEqual(['preemptions', 'KV allocation failures', 'cache-hit rate %']);
    expect(rows[0]).toEqual({ metric: 'preemptions', values: [4, 4], deltasPct: [0, 0] });
    expect(rows[2]!.values[0]).toBeCloseTo(40, 12); // (50% + 30%) / 2
  });

  it('names the two ways of counting the rate when a live run meets the twin, and shows – for a report without the section', () => {
    const rows = compareEngine([{ engine: live }, { engine: twin }, {}]);
    expect(rows[0]).toEqual({ metric: 'preemptions', values: [4, 6, null], deltasPct: [0, 50, null] });
    expect(rows[1]).toEqual({ metric: 'KV allocation failures', values: [10, 5, null], deltasPct: [0, -50, null] });
    expect(rows[2]!.metric).toBe('cache-hit rate % (prompt-tokens / kv-blocks / –)');
    expect(comparisonTable(['live', 'twin', 'old'], rows)).toMatch(/preemptions\s+4\s+6 \(\+50\.0%\)\s+–/);
  });

  it('adds nothing when no report has the section', () => {
    expect(compareEngine([{}, { engine: undefined }])).toEqual([]);
  });
});

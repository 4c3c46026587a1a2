import { describe, expect, it } from 'vitest';
import { cacheHits } from './cache-hits.js';
import type { RunRecord } from './types.js';

const record = (id: string, outcome: RunRecord['outcome'], cachedTokens?: number): RunRecord => ({
  id,
  fairnessId: 't',
  sloClass: 'standard',
  arrivalMs: 0,
  outputTokens: 1,
  outcome,
  status: outcome === 'completed' ? 200 : 429,
  priority: 0,
  attempts: 1,
  ...(cachedTokens === undefined ? {} : { cachedTokens }),
});

describe('cacheHits', () => {
  it('counts completed requests that found any prompt token in the cache, leaving out unknown counts and unserved requests', () => {
    const hits = cacheHits([record('a', 'completed', 0), record('b', 'completed', 512), record('c', 'completed', 16), record('d', 'completed'), record('e', 'rejected', 999)]);
    expect(hits).toEqual({ known: 3, hits: 2, hitRate: 2 / 3, meanCachedTokens: 176 });
  });

  it('is null, not 0, when no count is known', () => {
    expect(cacheHits([record('a', 'completed'), record('b', 'rejected', 3)])).toEqual({ known: 0, hits: 0, hitRate: null, meanCachedTokens: null });
  });
});

import type { RequestRecord } from './types.js';

/**
 * How much of the served workload the prefix caches carried: of the completed requests whose
 * serving instance reported its cached prompt tokens, how many found any (a cache hit) and how
 * many tokens they found. This is what BLIS's iteration-14 H14-2 measures (the cache-hit rate of
 * admitted requests against that of the arriving workload). Records without the count (an older
 * worker, an answer whose end was lost) are left out, and `known` says how many were counted.
 */
export interface CacheHits {
  /** Completed requests whose cached-token count is known. */
  readonly known: number;
  /** Of those, requests that found at least one prompt token in the cache. */
  readonly hits: number;
  /** hits / known; null when nothing is known. */
  readonly hitRate: number | null;
  /** Mean cached prompt tokens per known request; null when nothing is known. */
  readonly meanCachedTokens: number | null;
}

export function cacheHits(records: readonly RequestRecord[]): CacheHits {
  const tally = new CacheHitTally();
  for (const r of records) tally.add(r);
  return tally.result();
}

/** `cacheHits`, counted one record at a time. */
export class CacheHitTally {
  private known = 0;
  private hits = 0;
  private cached = 0;

  add(r: RequestRecord): void {
    if (r.outcome !== 'completed' || r.cachedTokens === undefined) return;
    this.known++;
    this.cached += r.cachedTokens;
    if (r.cachedTokens > 0) this.hits++;
  }

  result(): CacheHits {
    const { known, hits, cached } = this;
    return { known, hits, hitRate: known === 0 ? null : hits / known, meanCachedTokens: known === 0 ? null : cached / known };
  }
}

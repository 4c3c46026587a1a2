import type { EngineSection } from './engine-section.js';
import { escapeHtml } from './html-page.js';

const count = (v: number | null): string => (v === null ? '—' : `${v}`);
const pct = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

const RATE_NOTE: Record<EngineSection['cacheHitRateOf'], string> = {
  'kv-blocks': 'KV blocks reused from the prefix cache / blocks looked up or allocated, decode blocks counted as misses (the engine’s own count, in the twin)',
  'prompt-tokens': 'prompt tokens found in the prefix cache / prompt tokens looked up (the workers’ vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total over the run)',
};

/** The engine section of report.html: one row per instance and the cluster's row. */
export function engineSectionHtml(engine: EngineSection): string {
  const rows = engine.instances
    .map((i) => `<tr><td class="name">${escapeHtml(i.instance)}</td><td>${i.preemptions}</td><td>${count(i.kvAllocationFailures)}</td><td>${pct(i.cacheHitRate)}</td></tr>`)
    .join('\n');
  const { cluster } = engine;
  return `<h2 id="engine">Engine counters</h2>
<p>Per instance over the run: preemptions, KV allocation failures (requests refused KV blocks in a step, once a step) and the prefix-cache hit rate: ${escapeHtml(RATE_NOTE[engine.cacheHitRateOf])}.
The cluster’s hit rate is the unweighted mean of the instances’ rates, as BLIS computes it.</p>
<div class="table-wrap"><table class="summary" id="engine-counters"><thead><tr><th class="name">instance</th><th>preemptions</th><th>KV allocation failures</th><th>cache-hit rate</th></tr></thead><tbody>
${rows}
<tr class="group"><td class="name">cluster</td><td>${cluster.preemptions}</td><td>${count(cluster.kvAllocationFailures)}</td><td>${pct(cluster.cacheHitRate)}</td></tr>
</tbody></table></div>`;
}

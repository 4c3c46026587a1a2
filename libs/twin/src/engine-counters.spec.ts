import { loadConfig, loadProfile } from '@sluice/config';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { simulate } from './twin.js';

const profile = loadProfile(loadConfig());

/** A request whose prompt shares its first `shared` tokens with every other (a system prompt), the rest its own. */
function req(index: number, input: number, output: number, shared = 0): WorkloadRequest {
  return {
    index,
    clientId: `c${index}`,
    fairnessId: 't0',
    sloClass: 'standard',
    arrivalMs: index,
    inputTokens: Uint32Array.from({ length: input }, (_, i) => (i < shared ? 7_000_000 + i : (index + 1) * 1_000_000 + i)),
    maxTokens: output,
  };
}

const run = (requests: readonly WorkloadRequest[], argv: readonly string[]) => simulate(requests, { config: loadConfig({ argv }), profile, checkInvariants: true });

describe('twin: engine counters at the end of the run', () => {
  it('reports preemptions and KV allocation failures of an overloaded instance, without changing its records', () => {
    // 12 blocks; four requests of 64 prompt tokens (4 blocks) growing by 64 tokens (4 more) cannot all run at once.
    const requests = Array.from({ length: 4 }, (_, i) => req(i, 64, 64));
    const result = run(requests, ['--worker.instances=1', '--worker.kvBlocks=12']);
    expect(result.engine).toHaveLength(1);
    const [only] = result.engine;
    expect(only!.instance).toBe('twin-r0');
    expect(only!.preemptions).toBeGreaterThan(0);
    expect(only!.kvAllocationFailures).toBeGreaterThan(0);
    // The counters are read after the run: the records are those of a run that never asked.
    expect(result.records.every((r) => r.outcome === 'completed')).toBe(true);
    expect(JSON.stringify(run(requests, ['--worker.instances=1', '--worker.kvBlocks=12']).records)).toBe(JSON.stringify(result.records));
  });

  it('names every instance of every process, and counts shared prompt blocks as hits', () => {
    const requests = Array.from({ length: 8 }, (_, i) => req(i, 256, 4, 128));
    const { engine } = run(requests, ['--worker.instances=2', '--worker.processes=2']);
    expect(engine.map((e) => e.instance)).toEqual(['twin-0-r0', 'twin-0-r1', 'twin-1-r0', 'twin-1-r1']);
    expect(engine.every((e) => e.preemptions === 0 && e.kvAllocationFailures === 0)).toBe(true);
    // Any instance that served two of them reused the 8 shared blocks.
    expect(engine.some((e) => e.cacheHitRate > 0)).toBe(true);
    expect(engine.every((e) => e.cacheHitRate >= 0 && e.cacheHitRate < 1)).toBe(true);
  });
});

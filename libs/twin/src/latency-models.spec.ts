import { loadConfig, loadProfile } from '@sluice/config';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { ZERO_HOP_LATENCIES } from './hops.js';
import { simulate } from './twin.js';

/**
 * The twin builds its instances' latency model from the profile through the engine's registry, as
 * the worker does: with qwen3-14b-trained-physics (BLIS's trained-physics model, hand-computed in
 * libs/engine trained-physics.model.spec.ts), one 512-token prompt of 3 output tokens, no hops:
 *   queued at α0 = 15563 µs; prefill 14291 µs; α2 = 45 µs per token →
 *   token 1 at 15563 + 14291 + 45 = 29899;
 *   decode with 512 in KV, 12210 µs → token 2 at 15563 + 14291 + 12210 + 45 = 42109;
 *   decode with 513 in KV: 40·2·1024·2·514 B → 25.1384 µs · 1.94710771 = 48.9472, + 12161.6117 = 12210.559
 *   → 12210 µs → token 3 at 54319.
 */
describe('twin with the trained-physics latency model', () => {
  it('times a request by the profile’s model (hand-computed)', () => {
    const config = loadConfig({ argv: ['--worker.profile=qwen3-14b-trained-physics', '--worker.instances=1'] });
    const request: WorkloadRequest = { index: 0, clientId: 'c', fairnessId: 't', sloClass: 'standard', arrivalMs: 0, inputTokens: Uint32Array.from({ length: 512 }, (_, i) => i + 1), maxTokens: 3 };
    const [record] = simulate([request], { config, profile: loadProfile(config), hops: ZERO_HOP_LATENCIES, checkInvariants: true }).records;
    expect(record).toMatchObject({ outcome: 'completed', tokenTimesMs: [29.899, 42.109, 54.319], endMs: 54.319 });
  });
});

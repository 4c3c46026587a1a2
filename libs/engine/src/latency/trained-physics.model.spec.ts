import { micros } from '@sluice/contracts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LatencyProfileSchema } from '../profile.js';
import { VllmEngine } from '../vllm.engine.js';
import { createLatencyModel } from './latency-model.registry.js';
import { createTrainedPhysicsModel, TRAINED_PHYSICS } from './trained-physics.model.js';

/**
 * BLIS's trained-physics model for qwen3-14b on one H100, hand-computed from its formula
 * (inference-sim/inference-sim sim/latency/trained_physics_model.go at
 * f90a1e3a6787da17c2cd463dab6fb2660b1b1760) and the profile's numbers:
 *   L = 40, d = 5120, H = 40 → dH = 128, kvHeads 8 → dKV = 1024, dFF = 17408, bf16 (2 bytes), tp 1;
 *   FLOPS = 989.5e6 FLOP/µs, BW = 3.35e6 B/µs;
 *   β = [0.152128, 0, 1.36252915, 0.752037, 32.09546717, 4.41684444, 126.024825, 481.8613888, 0, 1.94710771, 0.752037].
 * Every step pays:
 *   weights = 40·5120·12288·2 + 40·3·5120·17408·2 = 5033164800 + 21390950400 = 26424115200 B
 *             → 7887.7956 µs, · β3 1.36252915 = 10747.3514
 *   β5·L = 32.09546717·40 = 1283.8187;  β7 = 126.0248;  β6 = 4.4168 per request.
 */
const profile = LatencyProfileSchema.parse(parse(readFileSync(new URL('../../profiles/qwen3-14b-trained-physics.yaml', import.meta.url), 'utf8')));
const model = createLatencyModel(profile.latencyModel, profile);

describe('trained-physics latency model (BLIS), qwen3-14b on H100', () => {
  it('is the profile’s model', () => {
    expect(model.name).toBe(TRAINED_PHYSICS);
  });

  it('one decode with 1000 tokens in KV: 12256 µs', () => {
    // decode KV = 40·2·1024·2·(1000 + 1) = 164003840 B → 48.9564 µs, · β2ᵦ 1.94710771 = 95.3233
    // (decode compute has β2ₐ = 0). 95.3233 + 10747.3514 + 1283.8187 + 4.4168 + 126.0248 = 12256.935 → 12256
    expect(model.stepTimeUs(0, 1, { requests: 1, decodeContextTokens: 1000, prefillAttentionTokens: 0 })).toBe(12256);
  });

  it('one fresh 512-token prefill: 14291 µs', () => {
    // projections 40·2·512·5120·12288 = 2576980377600, attention 40·4·40·512·(512 + 256)·128 =
    // 322122547200, MLP 40·512·6·5120·17408 = 10952166604800; sum 13851269529600 FLOPs
    // → 13998.2512 µs, · β1ₐ 0.152128 = 2129.5260 (prefill KV has β1ᵦ = 0).
    // 2129.5260 + 10747.3514 + 1283.8187 + 4.4168 + 126.0248 = 14291.138 → 14291
    expect(model.stepTimeUs(512, 0, { requests: 1, decodeContextTokens: 0, prefillAttentionTokens: 512 * (512 + 256) })).toBe(14291);
    // Given only the counts, the batch is taken as that same fresh prefill.
    expect(model.stepTimeUs(512, 0)).toBe(14291);
  });

  it('a 256-token chunk of a 1024-token prompt beside three decodes with 600 tokens in KV: 13309 µs', () => {
    // prefill: projections 40·2·256·5120·12288 = 1288490188800, attention 40·4·40·256·(1024 + 128)·128
    //   = 241591910400, MLP 40·256·6·5120·17408 = 5476083302400; sum 7006165401600 FLOPs
    //   → 7080.5108 µs, · β1ₐ 0.152128 = 1077.1439
    // decode KV: 40·2·1024·2·(600 + 3) = 98795520 B → 29.4912 µs, · 1.94710771 = 57.4225
    // 1077.1439 + 57.4225 + 10747.3514 + 1283.8187 + 4·4.4168 + 126.0248 = 13309.429 → 13309
    expect(model.stepTimeUs(256, 3, { requests: 4, decodeContextTokens: 600, prefillAttentionTokens: 256 * (1024 + 128) })).toBe(13309);
  });

  it('an empty batch costs 1 µs, as BLIS returns; queueing is α0 and each output token α2, truncated', () => {
    expect(model.stepTimeUs(0, 0)).toBe(1);
    expect(model.queueingDelayUs(4096)).toBe(15563); // α0 = 15563.199579, whatever the prompt
    expect(model.outputTokenDelayUs()).toBe(45); // α2 = 45.907545
  });

  it('with fewer than 10 betas the decode term is β2·max(compute, KV)', () => {
    const eight = createTrainedPhysicsModel({ ...profile.trainedPhysics!, beta: [0, 1, 0, 0, 0, 0, 0, 0] }, 1);
    // decode compute for D = 1, C = 1000: (40·2·5120·12288 + 40·4·40·1000·128 + 40·6·5120·17408) / 989.5e6
    //   = (5033164800 + 819200000 + 21390950400) / 989.5e6 = 27.5324 µs; KV 48.9564 µs (above) is
    //   larger, so the term is 1·48.9564, and every other β is 0 → 48
    expect(eight.stepTimeUs(0, 1, { requests: 1, decodeContextTokens: 1000, prefillAttentionTokens: 0 })).toBe(48);
  });

  it('drives the engine: a 512-token prompt waits α0, prefills in 14291 µs and decodes its first step in 12210 µs', () => {
    const engine = new VllmEngine({ model, totalKvBlocks: 100, maxModelLen: 40960 });
    engine.enqueue({ id: 'a', inputTokens: 512, maxTokens: 3, priority: 0, blockHashes: [] }, micros(0));
    expect(engine.canStep(micros(15562))).toBe(false);
    const prefill = engine.step(micros(15563));
    expect(prefill).toMatchObject({ durationUs: 14291, outputDelayUs: 45 });
    // The first decode reads the 512 prompt tokens' KV: 40·2·1024·2·513 = 84049920 B → 25.0895 µs,
    // · 1.94710771 = 48.8520; + 10747.3514 + 1283.8187 + 4.4168 + 126.0248 = 12210.464 → 12210
    expect(engine.step(micros(15563 + 14291)).durationUs).toBe(12210);
  });
});

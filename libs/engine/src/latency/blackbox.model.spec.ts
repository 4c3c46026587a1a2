import { describe, expect, it } from 'vitest';
import type { LatencyProfile } from '../profile.js';
import { createBlackboxModel } from './blackbox.model.js';
import { createLatencyModel } from './latency-model.registry.js';
import { LATENCY_MODEL_NAMES } from './latency-model-names.js';
import type { TrainedPhysicsCoefficients } from './trained-physics.coefficients.js';

/** qwen3-14b on H100, as libs/engine/profiles/qwen3-14b.yaml gives it: BLIS's coefficients at full precision. */
const qwen = { alpha: [8888.089034078324, 0.18488961143592303, 0.0], beta: [13578.186662538783, 39.44465647189146, 27.3227753326911] } as const;
/** The same, rounded to six decimals, as the profile had them before. */
const qwenRounded = { alpha: [8888.089034, 0.18489, 0.0], beta: [13578.186663, 39.444656, 27.322775] } as const;

describe('blackbox latency model (BLIS α/β)', () => {
  const model = createBlackboxModel(qwen);

  it('queueing delay = α0 + α1·input, truncated', () => {
    expect(model.queueingDelayUs(512)).toBe(8982); // 8982.75
    expect(model.queueingDelayUs(0)).toBe(8888);
  });

  it('step time = β0 + β1·prefill + β2·decode, truncated', () => {
    expect(model.stepTimeUs(512, 0)).toBe(33773); // 33773.85
    expect(model.stepTimeUs(0, 1)).toBe(13605); // 13605.51
    expect(model.stepTimeUs(2048, 10)).toBe(Math.trunc(qwen.beta[0] + qwen.beta[1] * 2048 + qwen.beta[2] * 10));
  });

  it('needs the coefficients at full precision: rounded to six decimals, some results move by 1 µs', () => {
    const rounded = createBlackboxModel(qwenRounded);
    // 8888.089034078324 + 0.18488961143592303·1806 = 9221.99… (rounded: 9222.00…)
    expect(model.queueingDelayUs(1806)).toBe(9221);
    expect(rounded.queueingDelayUs(1806)).toBe(9222);
    // 13578.186662538783 + 39.44465647189146·792 + 27.3227753326911·2 = 44873.00… (rounded: 44872.99…)
    expect(model.stepTimeUs(792, 2)).toBe(44873);
    expect(rounded.stepTimeUs(792, 2)).toBe(44872);
  });

  it('output token delay = α2', () => {
    expect(model.outputTokenDelayUs()).toBe(0);
    expect(createBlackboxModel({ alpha: [0, 0, 12.7], beta: [1, 0, 0] }).outputTokenDelayUs()).toBe(12);
  });

  it('never returns a step shorter than 1 µs or a negative delay', () => {
    const odd = createBlackboxModel({ alpha: [-50, 0, -3], beta: [-100, 0, 0] });
    expect(odd.stepTimeUs(0, 0)).toBe(1);
    expect(odd.queueingDelayUs(10)).toBe(0);
    expect(odd.outputTokenDelayUs()).toBe(0);
  });
});

describe('createLatencyModel', () => {
  const profile: LatencyProfile = { name: 'p', gpu: 'H100', tp: 1, alpha: [1, 0, 0], beta: [2, 0, 0], totalKvBlocks: 10, maxModelLen: 100, latencyModel: 'blackbox' };

  const trainedPhysics: TrainedPhysicsCoefficients = {
    alpha: [1, 0, 0],
    beta: [1, 1, 1, 1, 1, 1, 1],
    model: { layers: 1, hiddenDim: 8, heads: 2, kvHeads: 1, intermediateDim: 8, bytesPerParam: 2 },
    hardware: { tflopsPeak: 1, bwPeakTBs: 1 },
  };

  it.each(LATENCY_MODEL_NAMES)('builds %s by name', (name) => {
    expect(createLatencyModel(name, { ...profile, latencyModel: name, trainedPhysics }).name).toBe(name);
  });

  it('refuses trained-physics without its coefficients, naming the key', () => {
    expect(() => createLatencyModel('trained-physics', profile)).toThrow(/"trained-physics" needs its coefficients under "trainedPhysics"/);
  });

  it('names the allowed models when the name is unknown', () => {
    expect(() => createLatencyModel('roofline', profile)).toThrow(/unknown latency model "roofline"; allowed: blackbox/);
  });
});

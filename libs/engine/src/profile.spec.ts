import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LatencyProfileSchema } from './profile.js';

const builtIn = (name: string) => LatencyProfileSchema.parse(parse(readFileSync(new URL(`../profiles/${name}.yaml`, import.meta.url), 'utf8')));

describe('LatencyProfileSchema', () => {
  it('reads the built-in qwen3-14b profile (BLIS H100 TP1 coefficients)', () => {
    expect(builtIn('qwen3-14b')).toEqual({
      name: 'qwen3-14b',
      gpu: 'H100',
      tp: 1,
      latencyModel: 'blackbox',
      // Full precision (BLIS's defaults.yaml): rounded to 6 decimals, some steps move by 1 µs.
      alpha: [8888.089034078324, 0.18488961143592303, 0],
      beta: [13578.186662538783, 39.44465647189146, 27.3227753326911],
      totalKvBlocks: 17600,
      maxModelLen: 40960,
      modelLoadMs: 60_000,
      kvShape: { layers: 40, kvHeads: 8, headDim: 128, dtypeBytes: 2 },
    });
  });

  it('reads the built-in llama-3.1-8b profile', () => {
    expect(builtIn('llama-3.1-8b')).toMatchObject({
      name: 'llama-3.1-8b',
      alpha: [10326.268122, 0, 0],
      beta: [6472.007649, 19.797214, 304.402104],
      totalKvBlocks: 29205,
    });
  });

  it('defaults maxModelLen to 40960 and the latency model to blackbox', () => {
    const profile = LatencyProfileSchema.parse({ name: 'mine', gpu: 'A100', tp: 2, alpha: [1, 0, 0], beta: [1, 1, 1], totalKvBlocks: 100 });
    expect(profile).toMatchObject({ maxModelLen: 40960, latencyModel: 'blackbox' });
  });

  it('is strict: unknown keys, short coefficient lists and unknown models are errors', () => {
    const base = { name: 'mine', gpu: 'A100', tp: 1, alpha: [1, 0, 0], beta: [1, 1, 1], totalKvBlocks: 100 };
    expect(LatencyProfileSchema.safeParse({ ...base, gamma: 1 }).success).toBe(false);
    expect(LatencyProfileSchema.safeParse({ ...base, beta: [1, 1] }).success).toBe(false);
    expect(LatencyProfileSchema.safeParse({ ...base, latencyModel: 'roofline' }).success).toBe(false);
    expect(LatencyProfileSchema.safeParse({ ...base, totalKvBlocks: 0 }).success).toBe(false);
  });

  it('reads the built-in qwen3-14b-trained-physics profile (BLIS trained-physics, iter29)', () => {
    expect(builtIn('qwen3-14b-trained-physics')).toMatchObject({
      latencyModel: 'trained-physics',
      trainedPhysics: {
        alpha: [15563.199579, 777.3455, 45.907545],
        beta: [0.152128, 0.0, 1.36252915, 0.752037, 32.09546717, 4.41684444, 126.024825, 481.8613888, 0.0, 1.94710771, 0.752037],
        model: { layers: 40, hiddenDim: 5120, heads: 40, kvHeads: 8, intermediateDim: 17408, bytesPerParam: 2 },
        hardware: { tflopsPeak: 989.5, bwPeakTBs: 3.35 },
      },
    });
  });

  it('refuses latencyModel trained-physics without its coefficients, naming the key', () => {
    const result = LatencyProfileSchema.safeParse({ name: 'mine', gpu: 'H100', tp: 1, alpha: [1, 0, 0], beta: [1, 1, 1], totalKvBlocks: 100, latencyModel: 'trained-physics' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['trainedPhysics'], message: expect.stringMatching(/needs its coefficients/) })]);
  });

  it('refuses trained-physics coefficients BLIS would refuse: negative, too few betas, MoE keys', () => {
    const tp = builtIn('qwen3-14b-trained-physics').trainedPhysics!;
    const withTp = (trainedPhysics: unknown) => LatencyProfileSchema.safeParse({ ...builtIn('qwen3-14b-trained-physics'), trainedPhysics }).success;
    expect(withTp(tp)).toBe(true);
    expect(withTp({ ...tp, beta: [1, 1, 1, 1, 1, 1] })).toBe(false);
    expect(withTp({ ...tp, alpha: [-1, 0, 0] })).toBe(false);
    expect(withTp({ ...tp, model: { ...tp.model, numExperts: 8 } })).toBe(false);
    const tp3 = LatencyProfileSchema.safeParse({ ...builtIn('qwen3-14b-trained-physics'), tp: 3 });
    expect(tp3.error?.issues.map((i) => i.path.join('.'))).toEqual(['trainedPhysics.model.heads', 'trainedPhysics.model.kvHeads']);
  });
});

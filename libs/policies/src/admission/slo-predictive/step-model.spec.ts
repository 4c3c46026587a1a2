import { describe, expect, it } from 'vitest';
import { stepModelFor } from './step-model.js';

const PROFILE = { stepBaseUs: 6_000, prefillPerTokenUs: 20, decodePerTokenUs: 10, profile: 'llama-3.1-8b' };

describe('stepModelFor', () => {
  it("takes the serving profile's β: a queued request costs β0 + β2, the prefill β0 + β1·tokens", () => {
    expect(stepModelFor({}, PROFILE)).toEqual({ avgStepTimeUs: 6_010, prefillBaseUs: 6_000, prefillPerTokenUs: 20, source: 'profile:llama-3.1-8b' });
  });

  it('falls back to qwen3-14b (BLIS blackbox coefficients) without a profile', () => {
    expect(stepModelFor({}, undefined)).toEqual({ avgStepTimeUs: 13_605, prefillBaseUs: 13_578.186663, prefillPerTokenUs: 39.444656, source: 'default' });
  });

  it('lets explicit params win, one by one', () => {
    expect(stepModelFor({ avgStepTimeUs: 1_000 }, PROFILE)).toEqual({ avgStepTimeUs: 1_000, prefillBaseUs: 6_000, prefillPerTokenUs: 20, source: 'params+profile:llama-3.1-8b' });
    expect(stepModelFor({ avgStepTimeUs: 1, prefillBaseUs: 2, prefillPerTokenUs: 3 }, PROFILE)).toEqual({ avgStepTimeUs: 1, prefillBaseUs: 2, prefillPerTokenUs: 3, source: 'params' });
  });
});

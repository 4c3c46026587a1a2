import { micros } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterView } from '../../cluster-view.js';
import { policyRequest } from '../../testing/builders.js';
import type { AdmissionDecision } from '../admission-policy.js';
import { TokenBucketParamsSchema, createTokenBucket } from './token-bucket.policy.js';

const cluster: ClusterView = { instances: [] };
const ask = (capacity: number, refillRate: number) => {
  const policy = createTokenBucket({ capacity, refillRate });
  return (inputTokens: number, nowUs: number): AdmissionDecision => policy.decide(policyRequest({ inputTokens }), cluster, micros(nowUs));
};

describe('token-bucket', () => {
  it('defaults to capacity 10000 and 1000 tokens/s', () => {
    expect(TokenBucketParamsSchema.parse({})).toEqual({ capacity: 10_000, refillRate: 1_000 });
  });

  it('sizing example: a burst of 512-token requests admits exactly 19, then ~1.95/s when paced every 1 ms', () => {
    const decide = ask(10_000, 1_000);
    const t0 = 5_000_000;

    // Burst at one instant: no refill. 10000 − 19·512 = 272 left, less than 512.
    const burst = Array.from({ length: 20 }, () => decide(512, t0));
    expect(burst.filter((d) => d.admit)).toHaveLength(19);
    expect(burst[0]).toEqual({ admit: true, inputs: { cost: 512, bucket_level_before: 10_000, bucket_level_after: 9_488, capacity: 10_000 } });
    // The 19th: 10000 − 18·512 = 784 before, 272 after.
    expect(burst[18]!.inputs).toMatchObject({ bucket_level_before: 784, bucket_level_after: 272 });
    expect(burst[19]).toEqual({
      admit: false,
      reason: 'insufficient_tokens',
      message: 'insufficient tokens: the request costs 512, the bucket holds 272.0',
      inputs: { cost: 512, bucket_level_before: 272, bucket_level_after: 272, capacity: 10_000 },
      // 240 tokens short at 1000/s: the admission at k = 240 ms below.
      retryAfterMs: 240,
    });

    // Then one request every 1 ms for 10 s. Each ms refills 1000 µs · 1000/s / 1e6 = 1 token
    // (exact in floating point). Rejections cost nothing, so the level is 272 + k − 512·admitted
    // at ms k: admits at k = 240 (272 + 240 = 512), then every 512 ms: 240 + 512·j ≤ 10000 →
    // j = 0..19, i.e. 20 admissions in 10 s (2/s; 1000/512 = 1.95/s on average over a long run).
    const admittedAtMs: number[] = [];
    for (let k = 1; k <= 10_000; k++) {
      if (decide(512, t0 + k * 1_000).admit) admittedAtMs.push(k);
    }
    expect(admittedAtMs).toHaveLength(20);
    expect(admittedAtMs).toEqual(Array.from({ length: 20 }, (_, j) => 240 + 512 * j));
    // At k = 9968 the level went to 0; 32 ms later it holds 32.
    expect(decide(512, t0 + 10_000_000).inputs).toMatchObject({ bucket_level_before: 32, bucket_level_after: 32 });

    // After a long idle the bucket is full, never above capacity.
    const afterIdle = decide(512, t0 + 10_000_000 + 3_600_000_000);
    expect(afterIdle.inputs).toEqual({ cost: 512, bucket_level_before: 10_000, bucket_level_after: 9_488, capacity: 10_000 });
  });

  it('refills by the time since the previous decision, and not before the first one', () => {
    const decide = ask(1_000, 100);
    // First decision at a large time: no elapsed, the bucket starts full (not overfull).
    expect(decide(600, 1e12).inputs).toMatchObject({ bucket_level_before: 1_000, bucket_level_after: 400 });
    // 2.5 s later: 400 + 2.5·100 = 650.
    expect(decide(700, 1e12 + 2_500_000)).toMatchObject({ admit: false, inputs: { bucket_level_before: 650 } });
    // 0.5 s more: 650 + 50 = 700 → admitted, 0 left.
    expect(decide(700, 1e12 + 3_000_000)).toMatchObject({ admit: true, inputs: { bucket_level_before: 700, bucket_level_after: 0 } });
  });

  it('does not refill negatively (nor twice) when time steps back', () => {
    const decide = ask(1_000, 1_000);
    decide(1_000, 1_000_000); // empty at t = 1 s
    expect(decide(1, 500_000).inputs).toMatchObject({ bucket_level_before: 0 }); // back 0.5 s: clamped, not −500
    // Forward to 1.2 s: 0.2 s since the latest time seen (1 s), not 0.7 s since 0.5 s.
    expect(decide(1, 1_200_000).inputs).toMatchObject({ bucket_level_before: 200, bucket_level_after: 199 });
  });

  it('never admits a request dearer than the whole capacity', () => {
    const decide = ask(1_000, 1_000);
    expect(decide(1_001, 0)).toMatchObject({ admit: false, reason: 'insufficient_tokens', inputs: { bucket_level_before: 1_000 } });
    expect(decide(1_001, 1e9)).toMatchObject({ admit: false, inputs: { bucket_level_before: 1_000 } });
  });

  it('says how long until the refill covers a refused request, and a retry after that long passes', () => {
    const decide = ask(1_000, 200);
    decide(1_000, 0); // empty at t = 0
    const refused = decide(300, 500_000); // 0.5 s: 100 tokens back, 200 short at 200/s = 1 s
    expect(refused).toMatchObject({ admit: false, retryAfterMs: 1_000 });
    const waitUs = (refused as { retryAfterMs: number }).retryAfterMs * 1_000;
    expect(decide(300, 500_000 + waitUs - 1_000).admit).toBe(false); // 1 ms early: still short
    expect(decide(300, 500_000 + waitUs).admit).toBe(true);
  });

  it('gives no refill time where refill never covers the request', () => {
    expect(ask(1_000, 1_000)(1_001, 0)).not.toHaveProperty('retryAfterMs'); // dearer than the capacity
    const oneOff = ask(1_000, 0);
    oneOff(1_000, 0);
    expect(oneOff(1, 1e6)).not.toHaveProperty('retryAfterMs'); // never refills
  });

  it('with refillRate 0 is a one-off allowance', () => {
    const decide = ask(1_000, 0);
    expect(decide(1_000, 0).admit).toBe(true);
    expect(decide(1, 1e12)).toMatchObject({ admit: false, inputs: { bucket_level_before: 0 } });
  });

  it('property: the level stays in [0, capacity], and admitted cost over any interval ≤ capacity + refillRate·elapsed', () => {
    const EPS = 1e-6;
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 50_000, noNaN: true }),
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        fc.array(fc.record({ gapUs: fc.oneof(fc.constant(0), fc.nat({ max: 1_000 }), fc.nat({ max: 5_000_000 })), cost: fc.nat({ max: 20_000 }) }), {
          minLength: 1,
          maxLength: 120,
        }),
        (capacity, refillRate, arrivals) => {
          const decide = ask(capacity, refillRate);
          let nowUs = 0;
          const admitted: { atUs: number; cost: number }[] = [];
          const times: number[] = [];
          for (const { gapUs, cost } of arrivals) {
            nowUs += gapUs;
            times.push(nowUs);
            const d = decide(cost, nowUs);
            const before = d.inputs.bucket_level_before as number;
            const after = d.inputs.bucket_level_after as number;
            expect(before).toBeGreaterThanOrEqual(0);
            expect(before).toBeLessThanOrEqual(capacity);
            expect(after).toBeGreaterThanOrEqual(0);
            expect(after).toBeLessThanOrEqual(before);
            admitted.push({ atUs: nowUs, cost: d.admit ? cost : 0 });
          }
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              sum += admitted[j]!.cost;
              const elapsedUs = times[j]! - times[i]!;
              expect(sum).toBeLessThanOrEqual(capacity + (refillRate * elapsedUs) / 1e6 + EPS * (1 + sum));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  describe('replicas: each of N holds 1/N of the capacity and the refill', () => {
    it('three replicas splitting a burst admit what one bucket would', () => {
      const replicas = [0, 1, 2].map(() => createTokenBucket({ capacity: 9_000, refillRate: 900 }));
      // 60 requests of 300 tokens, dealt round and round (a queue group spreads them about evenly).
      const admitted = Array.from({ length: 60 }, (_, i) => replicas[i % 3]!.decide(policyRequest({ inputTokens: 300 }), cluster, micros(1_000_000), 3)).filter((d) => d.admit);
      expect(admitted).toHaveLength(30); // 9 000 / 300, as one bucket: each replica 10 of its 3 000
      expect(admitted[0]!.inputs).toMatchObject({ capacity: 3_000, replicas: 3 });
      // A second later each has refilled 300 tokens (900/s over three).
      const later = replicas.map((r) => r.decide(policyRequest({ inputTokens: 300 }), cluster, micros(2_000_000), 3));
      expect(later.map((d) => d.admit)).toEqual([true, true, true]);
      expect(later.map((d) => d.inputs.bucket_level_before)).toEqual([300, 300, 300]);
    });

    it('clips its tokens when its share shrinks (a replica joined) and refills toward a larger one (a replica left)', () => {
      const bucket = createTokenBucket({ capacity: 1_000, refillRate: 100 });
      const decide = (cost: number, atS: number, n: number) => bucket.decide(policyRequest({ inputTokens: cost }), cluster, micros(atS * 1e6), n);
      expect(decide(100, 0, 1).inputs).toMatchObject({ bucket_level_before: 1_000 });
      expect(decide(100, 0, 2).inputs).toMatchObject({ bucket_level_before: 500, capacity: 500, replicas: 2 });
      expect(decide(100, 1, 1).inputs).toMatchObject({ bucket_level_before: 500, capacity: 1_000 }); // 400 + 100 refilled
    });
  });
});

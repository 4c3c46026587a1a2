import { describe, expect, it } from 'vitest';
import { DecisionTraceLineSchema } from './decision-trace.js';

const line = {
  atUs: 1_000,
  requestId: 'r0',
  attempt: 0,
  model: 'm',
  policy: 'weighted',
  candidates: 2,
  instance: 'w-r0',
  regret: 0,
  top: [{ instanceId: 'w-r0', score: 0.75, effectiveLoad: 1, scores: { 'queue-depth': 0.5 }, signals: { queueDepth: 1, batchSize: 0, inFlight: 0, kvUtilization: 0.1, snapshotAgeMs: 12 } }],
};

describe('DecisionTraceLineSchema', () => {
  it('takes a decision, a decision with no instance, and what JSON writes as null for NaN and Infinity', () => {
    expect(DecisionTraceLineSchema.safeParse(line).success).toBe(true);
    expect(DecisionTraceLineSchema.safeParse({ ...line, instance: null, regret: null, top: [] }).success).toBe(true);
    const noSnapshot = { ...line.top[0]!, score: null, signals: { ...line.top[0]!.signals, snapshotAgeMs: null } };
    expect(DecisionTraceLineSchema.safeParse({ ...line, top: [noSnapshot] }).success).toBe(true);
    expect(DecisionTraceLineSchema.safeParse({ ...line, pd: { placement: 'remote', prefillInstance: 'w-r1', nonCachedTokens: 64 } }).success).toBe(true);
  });

  it('refuses a line with a key it does not know, a negative attempt or an unnamed request', () => {
    expect(DecisionTraceLineSchema.safeParse({ ...line, extra: 1 }).success).toBe(false);
    expect(DecisionTraceLineSchema.safeParse({ ...line, attempt: -1 }).success).toBe(false);
    expect(DecisionTraceLineSchema.safeParse({ ...line, requestId: '' }).success).toBe(false);
    expect(DecisionTraceLineSchema.safeParse({ ...line, top: [{ ...line.top[0], signals: { queueDepth: 1 } }] }).success).toBe(false);
  });
});

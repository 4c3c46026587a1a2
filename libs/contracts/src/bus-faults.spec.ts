import { describe, expect, it } from 'vitest';
import { BusFaultRuleSchema, ClearBusFaultsSchema, subjectPatternProblem } from './bus-faults.js';

describe('bus fault contracts', () => {
  it('takes NATS subject patterns: literal tokens, * for one token, > for the rest', () => {
    for (const ok of ['sluice.v1.worker.w1-r0.load', 'sluice.v1.worker.*.load', 'sluice.v1.>', '>', '*', 'a.*.>']) {
      expect(subjectPatternProblem(ok), ok).toBeUndefined();
    }
  });

  it('refuses what is not a pattern, saying why', () => {
    expect(subjectPatternProblem('')).toMatch(/empty/);
    expect(subjectPatternProblem('a..b')).toMatch(/token 2 is empty/);
    expect(subjectPatternProblem('a.')).toMatch(/token 2 is empty/);
    expect(subjectPatternProblem('a b.c')).toMatch(/whitespace/);
    expect(subjectPatternProblem('a.b*')).toMatch(/whole token/);
    expect(subjectPatternProblem('a.>.b')).toMatch(/last token/);
  });

  it('fills defaults and bounds the knobs', () => {
    expect(BusFaultRuleSchema.parse({ subject: 'a.*' })).toEqual({ subject: 'a.*', delayMs: 0, jitterMs: 0, dropPercent: 0, duplicatePercent: 0 });
    expect(BusFaultRuleSchema.safeParse({ subject: 'a', dropPercent: 101 }).success).toBe(false);
    expect(BusFaultRuleSchema.safeParse({ subject: 'a', duplicatePercent: -1 }).success).toBe(false);
    expect(BusFaultRuleSchema.safeParse({ subject: 'a', delayMs: 1.5 }).success).toBe(false);
    expect(BusFaultRuleSchema.safeParse({ subject: 'a', jitterMs: -1 }).success).toBe(false);
    expect(BusFaultRuleSchema.safeParse({ subject: 'a', delay: 5 }).success).toBe(false);
    const bad = BusFaultRuleSchema.safeParse({ subject: 'a.>.b' });
    expect(bad.success ? '' : bad.error.issues[0]!.message).toMatch(/^not a NATS subject pattern: /);
    expect(ClearBusFaultsSchema.parse({})).toEqual({});
  });
});

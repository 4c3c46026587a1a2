import { seededRandom } from '@sluice/collections';
import { BusFaultRuleSchema, type BusFaultRuleInput } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { BusFaultRules } from './bus-fault-rules.js';

const rule = (input: BusFaultRuleInput) => BusFaultRuleSchema.parse(input);

/** A random source that returns the given values in turn (then repeats them). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

/** n decisions on one subject under one rule, with a seeded source. */
function draws(input: BusFaultRuleInput, n: number, seed = 42) {
  const rules = new BusFaultRules(seededRandom(seed));
  rules.set(rule(input));
  return Array.from({ length: n }, () => rules.decide('a.b')!);
}

describe('BusFaultRules', () => {
  it('sets, replaces the rule of the same pattern in place, and clears one or all', () => {
    const rules = new BusFaultRules(sequence(0.5));
    expect(rules.size).toBe(0);
    expect(rules.set(rule({ subject: 'a.>', delayMs: 5 }))).toBe('added');
    expect(rules.set(rule({ subject: 'b.*', dropPercent: 10 }))).toBe('added');
    expect(rules.set(rule({ subject: 'a.>', delayMs: 7 }))).toBe('replaced');
    expect(rules.list().map((r) => [r.subject, r.delayMs])).toEqual([
      ['a.>', 7],
      ['b.*', 0],
    ]);

    // Clearing names a pattern exactly: it does not remove the rules that pattern overlaps.
    expect(rules.clear('a.b')).toEqual([]);
    expect(rules.clear('a.>').map((r) => r.subject)).toEqual(['a.>']);
    expect(rules.size).toBe(1);
    rules.set(rule({ subject: 'c' }));
    expect(rules.clear().map((r) => r.subject)).toEqual(['b.*', 'c']);
    expect(rules.size).toBe(0);
  });

  it('hands out copies, so a caller cannot change a rule behind its back', () => {
    const rules = new BusFaultRules(sequence(0.5));
    const input = rule({ subject: 'a', delayMs: 1 });
    rules.set(input);
    input.delayMs = 99;
    rules.list()[0]!.delayMs = 99;
    expect(rules.list()[0]!.delayMs).toBe(1);
  });

  it('applies the most specific matching rule, whatever the order they were set in', () => {
    const patterns = ['sluice.v1.>', 'sluice.v1.worker.>', 'sluice.v1.worker.*.load', 'sluice.v1.worker.w1.load', 'sluice.v1.*.w1.>'];
    for (const order of [patterns, [...patterns].reverse()]) {
      const rules = new BusFaultRules(sequence(0.5));
      for (const p of order) rules.set(rule({ subject: p }));
      expect(rules.match('sluice.v1.worker.w1.load')?.subject).toBe('sluice.v1.worker.w1.load');
      expect(rules.match('sluice.v1.worker.w2.load')?.subject).toBe('sluice.v1.worker.*.load');
      expect(rules.match('sluice.v1.worker.w2.kv')?.subject).toBe('sluice.v1.worker.>');
      expect(rules.match('sluice.v1.router.w1.x')?.subject).toBe('sluice.v1.*.w1.>');
      expect(rules.match('sluice.v1.router.submit')?.subject).toBe('sluice.v1.>');
      expect(rules.match('other.subject')).toBeUndefined();
    }
  });

  it('never faults control subjects, so a rule can always be cleared', () => {
    const rules = new BusFaultRules(sequence(0));
    rules.set(rule({ subject: '>', dropPercent: 100 }));
    expect(rules.decide('sluice.v1.control.bus.clear')).toBeUndefined();
    expect(rules.decide('sluice.v1.control.worker.set-faults')).toBeUndefined();
    expect(rules.decide('sluice.v1.router.submit')?.drop).toBe(true);
  });

  it('decides nothing where no rule matches, and takes no draw for knobs that are off', () => {
    let drawn = 0;
    const rules = new BusFaultRules(() => (drawn++, 0));
    rules.set(rule({ subject: 'a.*', delayMs: 30 }));
    expect(rules.decide('b.c')).toBeUndefined();
    expect(rules.decide('a.b')).toEqual({ drop: false, delayMs: 30, duplicate: false });
    expect(drawn).toBe(0);
  });

  it('drops when the draw falls under the percentage; a dropped message is neither delayed nor copied', () => {
    const rules = new BusFaultRules(sequence(0.249, 0.25));
    rules.set(rule({ subject: 'a.b', dropPercent: 25, delayMs: 10, duplicatePercent: 100 }));
    expect(rules.decide('a.b')).toEqual({ drop: true, delayMs: 0, duplicate: false });
    expect(rules.decide('a.b')?.drop).toBe(false);
  });

  it('0% and 100% are exact, whatever the source returns in [0, 1)', () => {
    for (const r of [0, 0.5, 0.999999]) {
      const rules = new BusFaultRules(sequence(r));
      rules.set(rule({ subject: 'all', dropPercent: 100 }));
      rules.set(rule({ subject: 'none', dropPercent: 0, duplicatePercent: 0 }));
      rules.set(rule({ subject: 'twice', duplicatePercent: 100 }));
      expect(rules.decide('all')?.drop).toBe(true);
      expect(rules.decide('none')).toEqual({ drop: false, delayMs: 0, duplicate: false });
      expect(rules.decide('twice')?.duplicate).toBe(true);
    }
  });

  it('drops and duplicates close to the percentages over many draws', () => {
    const n = 20_000;
    // Binomial(n, p): 5 standard deviations either side, so a correct rule fails about once in 3.5 million seeds.
    const within = (count: number, p: number) => {
      const sd = Math.sqrt(n * p * (1 - p));
      expect(count).toBeGreaterThanOrEqual(n * p - 5 * sd);
      expect(count).toBeLessThanOrEqual(n * p + 5 * sd);
    };
    for (const seed of [1, 2, 3]) {
      const d = draws({ subject: 'a.b', dropPercent: 30, duplicatePercent: 50 }, n, seed);
      const dropped = d.filter((x) => x.drop).length;
      within(dropped, 0.3);
      // Duplicates are drawn among the messages not dropped.
      const kept = d.filter((x) => !x.drop);
      const sd = Math.sqrt(kept.length * 0.25);
      expect(Math.abs(kept.filter((x) => x.duplicate).length - kept.length / 2)).toBeLessThanOrEqual(5 * sd);
    }
    within(draws({ subject: 'a.b', dropPercent: 0.5 }, n).filter((x) => x.drop).length, 0.005);
  });

  it('delays by delayMs plus a whole-ms jitter uniform over [0, jitterMs]', () => {
    const d = draws({ subject: 'a.b', delayMs: 100, jitterMs: 9 }, 10_000).map((x) => x.delayMs);
    expect(Math.min(...d)).toBe(100);
    expect(Math.max(...d)).toBe(109);
    expect(d.every((x) => Number.isInteger(x))).toBe(true);
    const perValue = Array.from({ length: 10 }, (_, k) => d.filter((x) => x === 100 + k).length);
    // 1000 expected per value; sd ≈ 30.
    for (const count of perValue) expect(Math.abs(count - 1000)).toBeLessThan(150);

    const edges = new BusFaultRules(sequence(0, 0.999999));
    edges.set(rule({ subject: 'a', delayMs: 5, jitterMs: 3 }));
    expect(edges.decide('a')?.delayMs).toBe(5);
    expect(edges.decide('a')?.delayMs).toBe(8);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodePromptBlocks } from './decode-prompt-blocks.js';

type Seq = { readonly promptHashes: readonly number[]; decodeCountedIn: number };

const countOf = (tracker: DecodePromptBlocks<Seq>, decoding: readonly Seq[]): number => {
  tracker.begin();
  for (const seq of decoding) tracker.see(seq);
  return tracker.count();
};

describe('DecodePromptBlocks', () => {
  it('counts a prefix shared by several requests once, until the last of them leaves', () => {
    const a = { promptHashes: [1, 2, 3], decodeCountedIn: 0 };
    const b = { promptHashes: [1, 2, 4, 5], decodeCountedIn: 0 };
    const tracker = new DecodePromptBlocks<Seq>();
    expect(countOf(tracker, [a])).toBe(3);
    expect(countOf(tracker, [a, b])).toBe(5);
    expect(countOf(tracker, [b])).toBe(4);
    expect(countOf(tracker, [])).toBe(0);
    expect(countOf(tracker, [a])).toBe(3);
  });

  it('always equals the size of the union rebuilt from scratch, whatever joins and leaves', () => {
    const seq = fc.record({ promptHashes: fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 8 }), decodeCountedIn: fc.constant(0) });
    fc.assert(
      fc.property(fc.array(seq, { minLength: 1, maxLength: 12 }), fc.array(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), { maxLength: 20 }), (pool, passes) => {
        const tracker = new DecodePromptBlocks<Seq>();
        for (const membership of passes) {
          const decoding = pool.filter((_, i) => membership[i]);
          const union = new Set(decoding.flatMap((s) => s.promptHashes));
          expect(countOf(tracker, decoding)).toBe(union.size);
        }
      }),
    );
  });

  it('keeps an exact count over thousands of 53-bit hashes, as its table grows and entries leave mid-cluster', () => {
    const hash = fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 600 }).map((i) => i * 4_294_967_296));
    const seq = fc.record({ promptHashes: fc.array(hash, { maxLength: 64 }), decodeCountedIn: fc.constant(0) });
    fc.assert(
      fc.property(fc.array(seq, { minLength: 1, maxLength: 40 }), fc.array(fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), { maxLength: 12 }), (pool, passes) => {
        const tracker = new DecodePromptBlocks<Seq>();
        for (const membership of [...passes, pool.map(() => true), []]) {
          const decoding = pool.filter((_, i) => membership[i]);
          expect(countOf(tracker, decoding)).toBe(new Set(decoding.flatMap((s) => s.promptHashes)).size);
        }
      }),
      { numRuns: 60 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeBlocks } from './decode-blocks.js';

const BLOCK = 16;
type Seq = { readonly promptHashes: readonly number[]; computed: number; decoding: boolean };

/** A request just past its prefill: its prompt's full blocks plus `extra` tokens computed. */
const decodingSeq = (promptHashes: readonly number[], extra = 0): Seq => ({ promptHashes, computed: promptHashes.length * BLOCK + extra, decoding: false });

/** What the count must equal: the union of the decoding requests' prompt hashes, plus each one's blocks past them. */
const rebuilt = (decoding: readonly Seq[]): number =>
  new Set(decoding.flatMap((s) => s.promptHashes)).size + decoding.reduce((sum, s) => sum + Math.ceil(s.computed / BLOCK) - s.promptHashes.length, 0);

describe('DecodeBlocks', () => {
  it('counts a prefix shared by several requests once, until the last of them leaves', () => {
    const a = decodingSeq([1, 2, 3]);
    const b = decodingSeq([1, 2, 4, 5]);
    const blocks = new DecodeBlocks<Seq>(BLOCK);
    blocks.join(a);
    expect(blocks.count()).toBe(3);
    blocks.join(b);
    blocks.join(b); // counted once
    expect(blocks.count()).toBe(5);
    blocks.leave(a);
    expect(blocks.count()).toBe(4);
    blocks.leave(b);
    blocks.leave(b);
    expect(blocks.count()).toBe(0);
  });

  it('counts the blocks a request fills past its prompt as its own, as its output grows', () => {
    const seq = decodingSeq([7, 8], 3);
    const blocks = new DecodeBlocks<Seq>(BLOCK);
    blocks.grew(seq, 0); // not decoding yet: nothing
    blocks.join(seq);
    expect(blocks.count()).toBe(3);
    for (let i = 0; i < BLOCK; i++) {
      seq.computed++;
      blocks.grew(seq, seq.computed - 1);
    }
    expect(blocks.count()).toBe(4);
    blocks.leave(seq);
    expect(blocks.count()).toBe(0);
  });

  it('always equals the count rebuilt from scratch, whatever joins, grows and leaves', () => {
    const hash = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 600 }).map((i) => i * 4_294_967_296));
    const seq = fc.record({ promptHashes: fc.array(hash, { maxLength: 48 }), extra: fc.integer({ min: 0, max: 40 }) });
    const move = fc.record({ who: fc.nat(), what: fc.constantFrom('join', 'grow', 'leave') });
    fc.assert(
      fc.property(fc.array(seq, { minLength: 1, maxLength: 30 }), fc.array(move, { maxLength: 200 }), (specs, moves) => {
        const pool = specs.map((s) => decodingSeq(s.promptHashes, s.extra));
        const blocks = new DecodeBlocks<Seq>(BLOCK);
        for (const { who, what } of moves) {
          const s = pool[who % pool.length]!;
          if (what === 'join') blocks.join(s);
          else if (what === 'leave') blocks.leave(s);
          else {
            s.computed++;
            blocks.grew(s, s.computed - 1);
          }
          expect(blocks.count()).toBe(rebuilt(pool.filter((p) => p.decoding)));
        }
      }),
      { numRuns: 80 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '@sluice/collections';
import { blocksNamed } from '../testing/builders.js';
import { DEFAULT_PREFIX_INDEX_CAPACITY, PrefixIndex } from './prefix-index.js';

describe('PrefixIndex', () => {
  it('counts only the leading run of hits: a hit after a miss does not count', () => {
    const index = new PrefixIndex();
    index.record('i1', blocksNamed('h0', 'h1', 'h2'));
    expect(index.matchedBlocks('i1', blocksNamed('h0', 'h1', 'h2', 'h3'))).toBe(3);
    expect(index.matchedBlocks('i1', blocksNamed('h0', 'x1', 'h2'))).toBe(1);
    expect(index.matchedBlocks('i1', blocksNamed('x0', 'h1', 'h2'))).toBe(0);
    expect(index.matchedBlocks('i1', [])).toBe(0);
  });

  it('keeps instances apart, and an unknown instance matches nothing', () => {
    const index = new PrefixIndex();
    index.record('i1', blocksNamed('h0'));
    expect(index.matchedBlocks('i2', blocksNamed('h0'))).toBe(0);
    expect(index.matchedBlocks('nobody', blocksNamed('h0'))).toBe(0);
    expect(index.size('nobody')).toBe(0);
  });

  it('evicts the least recently used hashes beyond capacity', () => {
    const index = new PrefixIndex(3);
    index.record('i1', blocksNamed('a'));
    index.record('i1', blocksNamed('b'));
    index.record('i1', blocksNamed('c'));
    index.record('i1', blocksNamed('d')); // LRU order a, b, c, d → a goes
    expect(index.size('i1')).toBe(3);
    expect(index.matchedBlocks('i1', blocksNamed('a'))).toBe(0);
    expect(index.matchedBlocks('i1', blocksNamed('b'))).toBe(1);
    expect(index.matchedBlocks('i1', blocksNamed('d'))).toBe(1);
  });

  it('record refreshes recency; matchedBlocks does not', () => {
    const index = new PrefixIndex(3);
    index.record('i1', blocksNamed('a'));
    index.record('i1', blocksNamed('b'));
    index.record('i1', blocksNamed('c'));
    expect(index.matchedBlocks('i1', blocksNamed('b'))).toBe(1); // a read: b stays second-oldest
    index.record('i1', blocksNamed('a')); // order now b, c, a
    index.record('i1', blocksNamed('d')); // b goes
    expect(index.matchedBlocks('i1', blocksNamed('a'))).toBe(1);
    expect(index.matchedBlocks('i1', blocksNamed('b'))).toBe(0);
    expect(index.matchedBlocks('i1', blocksNamed('c'))).toBe(1);
  });

  it("keeps a prompt's leading blocks when one prompt overflows the capacity", () => {
    const index = new PrefixIndex(3);
    index.record('i1', blocksNamed('p0', 'p1', 'p2', 'p3', 'p4'));
    expect(index.size('i1')).toBe(3);
    expect(index.matchedBlocks('i1', blocksNamed('p0', 'p1', 'p2', 'p3', 'p4'))).toBe(3);
  });

  describe("recordOrder 'prompt' (BLIS parity mode: BLIS's RecordBlocks touches first to last)", () => {
    it('leaves a prompt\'s last block the most recent, so its first goes first', () => {
      // Capacity 3. i1 records [a0, a1], then [b0, b1]: four blocks, one goes.
      // leading-last: touches a1, a0, b1, b0 → a1 is oldest → a0 stays: a prompt [a0, a1] matches 1.
      // prompt:       touches a0, a1, b0, b1 → a0 is oldest → the prompt's leading block is gone: 0.
      const record = (index: PrefixIndex) => {
        index.record('i1', blocksNamed('a0', 'a1'));
        index.record('i1', blocksNamed('b0', 'b1'));
        return index.matchedBlocks('i1', blocksNamed('a0', 'a1'));
      };
      expect(record(new PrefixIndex(3))).toBe(1);
      expect(record(new PrefixIndex(3, 'prompt'))).toBe(0);
    });

    it('keeps the last blocks of a prompt that overflows the capacity, as BLIS evicts before each insert', () => {
      // BLIS: p0, p1, p2 fill it; p3 evicts p0, p4 evicts p1 → p2, p3, p4 held; the prompt matches 0.
      const index = new PrefixIndex(3, 'prompt');
      index.record('i1', blocksNamed('p0', 'p1', 'p2', 'p3', 'p4'));
      expect(index.size('i1')).toBe(3);
      expect(index.matchedBlocks('i1', blocksNamed('p0', 'p1', 'p2', 'p3', 'p4'))).toBe(0);
      expect(index.matchedBlocks('i1', blocksNamed('p2', 'p3', 'p4'))).toBe(3);
    });
  });

  it('remove forgets the named hashes only', () => {
    const index = new PrefixIndex();
    index.record('i1', blocksNamed('h0', 'h1', 'h2'));
    index.remove('i1', blocksNamed('h1', 'never-seen'));
    expect(index.size('i1')).toBe(2);
    expect(index.matchedBlocks('i1', blocksNamed('h0', 'h1', 'h2'))).toBe(1);
    index.remove('unknown', blocksNamed('h0')); // no-op
    index.remove('i1', blocksNamed('h0', 'h2'));
    expect(index.size('i1')).toBe(0);
    expect(index.matchedBlocks('i1', blocksNamed('h0'))).toBe(0);
  });

  it('dropInstance forgets the instance entirely', () => {
    const index = new PrefixIndex();
    index.record('i1', blocksNamed('h0', 'h1'));
    index.record('i2', blocksNamed('h0'));
    index.dropInstance('i1');
    expect(index.size('i1')).toBe(0);
    expect(index.matchedBlocks('i1', blocksNamed('h0'))).toBe(0);
    expect(index.matchedBlocks('i2', blocksNamed('h0'))).toBe(1);
  });

  it('defaults to 10,000 blocks per instance and refuses a non-positive capacity', () => {
    expect(DEFAULT_PREFIX_INDEX_CAPACITY).toBe(10_000);
    const index = new PrefixIndex();
    index.record('i1', Array.from({ length: 10_001 }, (_, i) => i));
    expect(index.size('i1')).toBe(10_000);
    expect(() => new PrefixIndex(0)).toThrow(RangeError);
  });

  it('answers matchedBlocksByInstance exactly as matchedBlocks per instance, through records, LRU evictions, removals and drops', () => {
    const random = seededRandom(7);
    const pick = (n: number) => Math.floor(random() * n);
    // Small capacity so evictions happen; prompts are chains over a small alphabet so prefixes are shared.
    const index = new PrefixIndex(12);
    const instances = ['a', 'b', 'c', 'd'];
    const prompt = () => Array.from({ length: 1 + pick(8) }, (_, i) => 10 * i + pick(3));
    for (let step = 0; step < 2_000; step++) {
      const op = pick(10);
      const id = instances[pick(instances.length)]!;
      if (op < 7) index.record(id, prompt());
      else if (op < 9) index.remove(id, prompt());
      else index.dropInstance(id);
      const query = prompt();
      const bulk = index.matchedBlocksByInstance(query);
      for (const instance of instances) expect(bulk.get(instance) ?? 0).toBe(index.matchedBlocks(instance, query));
    }
  });

  it('answers matchedBlocksByInstance exactly as matchedBlocks per instance when many instances share blocks (holders walked or asked one by one)', () => {
    const random = seededRandom(11);
    const pick = (n: number) => Math.floor(random() * n);
    const index = new PrefixIndex(40);
    const instances = Array.from({ length: 60 }, (_, i) => `i${i}`);
    // Three families of 12 blocks; an instance holds a leading part of one or two of them.
    const family = (f: number, length: number) => Array.from({ length }, (_, k) => 100 * f + k);
    for (let step = 0; step < 600; step++) {
      const id = instances[pick(instances.length)]!;
      if (pick(10) < 8) index.record(id, family(pick(3), 1 + pick(12)));
      else if (pick(2) === 0) index.remove(id, family(pick(3), 12).slice(pick(12)));
      else index.dropInstance(id);
      const query = [...family(pick(3), 1 + pick(12)), 9_999];
      const bulk = index.matchedBlocksByInstance(query);
      for (const instance of instances) expect(bulk.get(instance) ?? 0).toBe(index.matchedBlocks(instance, query));
    }
  });

  it('agrees with a plain per-instance LRU model through records, removals, drops and slot reuse (fast-check)', () => {
    const instances = ['a', 'b', 'c'];
    const hash = fc.integer({ min: 0, max: 14 });
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('record' as const), instance: fc.constantFrom(...instances), hashes: fc.array(hash, { maxLength: 6 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), instance: fc.constantFrom(...instances, 'unknown'), hashes: fc.array(hash, { maxLength: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), instance: fc.constantFrom(...instances, 'unknown'), hashes: fc.constant([]) }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 120 }), fc.array(hash, { maxLength: 6 }), (capacity, ops, query) => {
        const index = new PrefixIndex(capacity);
        // The obvious model: per instance, its hashes oldest first; a refresh moves one to the end.
        const model = new Map<string, number[]>();
        for (const { kind, instance, hashes } of ops) {
          const held = model.get(instance) ?? [];
          if (kind === 'record') {
            for (let i = hashes.length - 1; i >= 0; i--) {
              const at = held.indexOf(hashes[i]!);
              if (at !== -1) held.splice(at, 1);
              held.push(hashes[i]!);
            }
            while (held.length > capacity) held.shift();
            if (hashes.length > 0) model.set(instance, held);
            index.record(instance, hashes);
          } else if (kind === 'remove') {
            model.set(instance, held.filter((h) => !hashes.includes(h)));
            index.remove(instance, hashes);
          } else {
            model.delete(instance);
            index.dropInstance(instance);
          }
          for (const id of instances) {
            const mine = model.get(id) ?? [];
            expect(index.size(id)).toBe(mine.length);
            let run = 0;
            while (run < query.length && mine.includes(query[run]!)) run++;
            expect(index.matchedBlocks(id, query)).toBe(run);
            expect(index.matchedBlocksByInstance(query).get(id) ?? 0).toBe(run);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

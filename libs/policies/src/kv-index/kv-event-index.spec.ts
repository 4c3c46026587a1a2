import { micros } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blocksNamed } from '../testing/builders.js';
import { KvEventIndex, type KvBlockEvent } from './kv-event-index.js';

const event = (instanceId: string, atMs: number, stored: number[], removed: number[] = []): KvBlockEvent => ({ instanceId, atUs: micros(atMs * 1000), stored, removed });
const at = (ms: number) => micros(ms * 1000);

describe('KvEventIndex', () => {
  it('holds what the stored events said and forgets what the removed events said', () => {
    const index = new KvEventIndex(100, 0);
    index.receive(event('i0', 1, blocksNamed('a', 'b', 'c')));
    index.receive(event('i1', 1, blocksNamed('a')));
    expect(index.matchedBlocks('i0', blocksNamed('a', 'b', 'c', 'd'))).toBe(3);
    index.receive(event('i0', 2, [], blocksNamed('b')));
    // A leading run only: without b, c is useless to the engine.
    expect(index.matchedBlocks('i0', blocksNamed('a', 'b', 'c'))).toBe(1);
    expect(index.matchedBlocks('i1', blocksNamed('a', 'b'))).toBe(1);
    expect(index.matchedBlocks('i9', blocksNamed('a'))).toBe(0);
  });

  it('applies removed before stored within one event (a block evicted and stored again in one step stays)', () => {
    const index = new KvEventIndex(100, 0);
    index.receive(event('i0', 1, blocksNamed('a')));
    index.receive(event('i0', 2, blocksNamed('a'), blocksNamed('a')));
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(1);
  });

  it('a cleared event (an instance starting with an empty cache) drops what came before it, in its place in the queue', () => {
    const index = new KvEventIndex(100, 50_000);
    index.receive(event('i0', 1, blocksNamed('a', 'b')));
    index.receive(event('i1', 1, blocksNamed('a')));
    index.receive({ ...event('i0', 2, blocksNamed('c')), cleared: true });
    index.receive(event('i0', 3, blocksNamed('d')));
    index.refreshIfDue(at(100));
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(0);
    expect(index.matchedBlocks('i0', blocksNamed('c'))).toBe(1);
    expect(index.matchedBlocks('i0', blocksNamed('d'))).toBe(1);
    expect(index.matchedBlocksByInstance(blocksNamed('a'))).toEqual(new Map([['i1', 1]]));
    expect(index.blockCount('i0')).toBe(2);
  });

  it('forgets everything of an instance that is cleared, events still pending included', () => {
    const index = new KvEventIndex(100, 50_000);
    index.receive(event('i0', 1, blocksNamed('a', 'b')));
    index.refreshIfDue(at(1));
    index.receive(event('i0', 2, blocksNamed('c')));
    index.clear('i0');
    index.refreshIfDue(at(100));
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(0);
    expect(index.matchedBlocks('i0', blocksNamed('c'))).toBe(0);
    expect(index.stats()).toMatchObject({ instances: 0, blocks: 0, pendingEvents: 0 });
    expect(index.ageUs('i0', at(100))).toBe(Number.POSITIVE_INFINITY);
  });

  it('shows events only at a refresh, once the view is at least refreshUs old (BLIS’s lazy snapshot)', () => {
    const index = new KvEventIndex(100, 50_000);
    expect(index.refreshIfDue(at(0))).toBe(true); // the first decision takes the first snapshot
    index.receive(event('i0', 10, blocksNamed('a')));
    expect(index.refreshIfDue(at(49))).toBe(false);
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(0);
    expect(index.viewAgeUs(at(49))).toBe(49_000);
    expect(index.refreshIfDue(at(50))).toBe(true);
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(1);
    expect(index.ageUs('i0', at(50))).toBe(40_000);
  });

  it('bounds each instance at its capacity, dropping the oldest stored first', () => {
    const index = new KvEventIndex(3, 0);
    index.receive(event('i0', 1, blocksNamed('a', 'b', 'c')));
    index.receive(event('i0', 2, blocksNamed('d')));
    expect(index.blockCount('i0')).toBe(3);
    expect(index.matchedBlocks('i0', blocksNamed('b', 'c', 'd'))).toBe(3);
    expect(index.matchedBlocks('i0', blocksNamed('a'))).toBe(0);
    expect(index.stats().overflowDrops).toBe(1);
  });

  it('refuses a capacity or refresh that cannot work', () => {
    expect(() => new KvEventIndex(0)).toThrow(RangeError);
    expect(() => new KvEventIndex(10, -1)).toThrow(RangeError);
  });

  it('answers the bulk lookup as the per-instance lookup does, and stays within capacity, for any events', () => {
    const blocks = fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 6 });
    const events = fc.array(fc.record({ instance: fc.integer({ min: 0, max: 3 }), stored: blocks, removed: blocks, clear: fc.boolean() }), { maxLength: 40 });
    fc.assert(
      fc.property(events, blocks, (es, request) => {
        const index = new KvEventIndex(5, 0);
        es.forEach((e, k) => {
          if (e.clear && k % 7 === 0) index.clear(`i${e.instance}`);
          else index.receive(event(`i${e.instance}`, k, e.stored, e.removed));
        });
        const bulk = index.matchedBlocksByInstance(request);
        for (let i = 0; i < 4; i++) {
          expect(bulk.get(`i${i}`) ?? 0).toBe(index.matchedBlocks(`i${i}`, request));
          expect(index.blockCount(`i${i}`)).toBeLessThanOrEqual(5);
        }
      }),
      { numRuns: 300 },
    );
  });
});

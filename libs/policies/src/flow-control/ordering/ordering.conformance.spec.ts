import { microsFromMillis } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queuedRequest } from '../../testing/builders.js';
import { Heap } from '@sluice/collections';
import type { QueuedRequest } from '../queued-request.js';
import { createFlowControlRegistry } from '../registry.js';

/** Items with distinct seq and colliding times, deadlines and SLOs, so every tie-break is exercised. */
const items = fc
  .array(
    fc.record({
      enqueuedAtMs: fc.nat({ max: 50 }),
      ttlMs: fc.constantFrom(1_000, 5_000, 60_000),
      arrivalBeforeMs: fc.nat({ max: 20 }),
      sloTtftMs: fc.option(fc.constantFrom(100, 250, 1_000), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((specs) =>
    specs.map((s, seq): QueuedRequest => {
      const arrivalMs = s.enqueuedAtMs - s.arrivalBeforeMs;
      return queuedRequest({
        seq,
        enqueuedAtUs: microsFromMillis(s.enqueuedAtMs),
        arrivalUs: microsFromMillis(arrivalMs),
        ttlDeadlineUs: microsFromMillis(s.enqueuedAtMs + s.ttlMs),
        sloDeadlineUs: s.sloTtftMs === undefined ? undefined : microsFromMillis(arrivalMs + s.sloTtftMs),
      });
    }),
  );

/** The OrderingPolicy contract, over every registered ordering policy. */
describe.each(createFlowControlRegistry().ordering.names())('OrderingPolicy conformance: %s', (name) => {
  const policy = createFlowControlRegistry().ordering.create(name, {});
  const sign = (a: QueuedRequest, b: QueuedRequest) => Math.sign(policy.compare(a, b));

  it('is named by its registry name', () => {
    expect(policy.name).toBe(name);
  });

  it('is a strict total order: irreflexive, never 0 for distinct requests, antisymmetric, transitive', () => {
    fc.assert(
      fc.property(items, (list) => {
        for (const a of list) {
          expect(sign(a, a)).toBe(0);
          for (const b of list) {
            if (a === b) continue;
            expect(sign(a, b)).not.toBe(0);
            expect(sign(a, b)).toBe(-sign(b, a));
            for (const c of list) {
              if (sign(a, b) < 0 && sign(b, c) < 0) expect(sign(a, c)).toBeLessThan(0);
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('falls back to enqueue order (seq) when everything else ties', () => {
    const same = { enqueuedAtUs: microsFromMillis(10), arrivalUs: microsFromMillis(5), ttlDeadlineUs: microsFromMillis(60_010) };
    for (const sloDeadlineUs of [undefined, microsFromMillis(300)]) {
      const first = queuedRequest({ seq: 7, ...same, sloDeadlineUs });
      const second = queuedRequest({ seq: 8, ...same, sloDeadlineUs });
      expect(policy.compare(first, second)).toBeLessThan(0);
      expect(policy.compare(second, first)).toBeGreaterThan(0);
    }
  });

  it('a heap under it pops in sorted order', () => {
    fc.assert(
      fc.property(items, (list) => {
        const heap = new Heap<QueuedRequest>((a, b) => policy.compare(a, b));
        for (const item of list) heap.push(item);
        const popped: QueuedRequest[] = [];
        while (heap.size > 0) popped.push(heap.pop()!);
        expect(popped.map((i) => i.seq)).toEqual([...list].sort((a, b) => policy.compare(a, b)).map((i) => i.seq));
        expect(heap.pop()).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});

import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { runDispatchCycle } from './dispatch-cycle.js';
import { FlowPool } from './flow-pool.js';
import { FlowQueues } from './flow-queues.js';
import { fcfsOrdering } from './ordering/fcfs/fcfs.ordering.js';
import { globalStrictFairness } from './fairness/global-strict/global-strict.fairness.js';
import { createConcurrencyDetector } from './saturation/concurrency/concurrency.detector.js';

const identity = { instanceId: 'i0', workerId: 'w', rank: 0, model: 'm', totalKvBlocks: 100 };

describe('FlowPool', () => {
  it('signals taken once per cycle still see each release: the gate holds after maxConcurrency', () => {
    const pool = new FlowPool(microsFromMillis(3_000));
    pool.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    const band = { maxRequests: 0, maxBytes: 0, fairness: globalStrictFairness, ordering: fcfsOrdering };
    const queues = new FlowQueues<string>({ maxRequests: 0, maxBytes: 0, defaultRequestTtlUs: microsFromMillis(60_000), bands: new Map(), defaultBand: band });
    for (let i = 0; i < 5; i++) queues.enqueue({ id: `r${i}`, flow: { fairnessId: 't', priority: 0 }, byteSize: 1, tokens: 10, arrivalUs: microsFromMillis(0), payload: `r${i}` }, microsFromMillis(0));
    const detector = createConcurrencyDetector({ maxConcurrency: 2 });
    const signals = pool.signals(microsFromMillis(0)); // one reading per cycle, as the services and the twin take it
    const result = runDispatchCycle(queues, () => detector.saturation(signals), (item) => pool.dispatched(item.id, 10, microsFromMillis(0), microsFromMillis(1_000)));
    expect(result).toMatchObject({ dispatched: 2, stoppedBy: 'saturated' });
    expect(signals.inFlightRequests).toBe(2);
    expect(signals.inFlightTokens).toBe(20);
    expect(queues.size).toBe(3);
  });
});

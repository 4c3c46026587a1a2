import { microsFromMillis } from '@sluice/contracts';
import type { LifecycleEvent, LoadSnapshot } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClusterState } from './cluster-state.js';
import { PrefixIndex } from './prefix-index/prefix-index.js';
import { blocksNamed, instanceView } from './testing/builders.js';

const identity = { instanceId: 'i1', workerId: 'w1', rank: 0, model: 'qwen3-14b', totalKvBlocks: 1_000 };
const snapshot: LoadSnapshot = {
  instanceId: 'i1',
  workerId: 'w1',
  rank: 0,
  atUs: microsFromMillis(100),
  queueDepth: 3,
  batchSize: 4,
  inFlight: 7,
  kvUtilization: 0.25,
  freeKvBlocks: 750,
  totalKvBlocks: 1_000,
  activePrefillTokens: 1_234,
  activeDecodeBlocks: 56,
  cacheHitRate: 0.5,
  preemptions: 0,
};

describe('ClusterState.view', () => {
  it('reads the load signals as zero before the first snapshot, then from the last one', () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    expect(state.view(microsFromMillis(50)).instances[0]).toMatchObject({ queueDepth: 0, activePrefillTokens: 0, activeDecodeBlocks: 0, snapshotAgeUs: microsFromMillis(Number.POSITIVE_INFINITY) });
    state.onSnapshot(snapshot);
    expect(state.view(microsFromMillis(150)).instances[0]).toMatchObject({ queueDepth: 3, batchSize: 4, kvUtilization: 0.25, activePrefillTokens: 1_234, activeDecodeBlocks: 56, snapshotAgeUs: microsFromMillis(50) });
  });

  it("holds identity and signals only: a heartbeat's own fields (type, atUs) do not reach the view", () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    state.onLifecycle({ ...identity, rank: 1, type: 'heartbeat', atUs: microsFromMillis(40) });
    // Exactly an InstanceView: the identity, zeros before the first snapshot, nothing else.
    expect(state.view(microsFromMillis(50)).instances[0]).toEqual(instanceView({ ...identity, rank: 1, snapshotAgeUs: microsFromMillis(Number.POSITIVE_INFINITY) }));
  });

  it('passes the prefix lookup through, and has none unless given one', () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    expect(state.view(microsFromMillis(0)).prefix).toBeUndefined();
    expect('prefix' in state.view(microsFromMillis(0))).toBe(false);
    const index = new PrefixIndex();
    index.record('i1', blocksNamed('h0', 'h1'));
    const view = state.view(microsFromMillis(0), index);
    expect(view.prefix).toBe(index);
    expect(view.prefix?.matchedBlocks('i1', blocksNamed('h0', 'h1', 'h2'))).toBe(2);
  });

  it('on-refresh: a snapshot is seen only after refresh(), with its own age; liveness counts at once', () => {
    const state = new ClusterState(microsFromMillis(100), { snapshots: 'on-refresh' });
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    state.onSnapshot({ ...snapshot, atUs: microsFromMillis(90) });
    expect(state.view(microsFromMillis(120)).instances[0]).toMatchObject({ queueDepth: 0, snapshotAgeUs: microsFromMillis(Number.POSITIVE_INFINITY) });
    // The snapshot kept the instance alive even though policies do not see it yet.
    expect(state.expire(microsFromMillis(150))).toEqual([]);
    state.refresh();
    expect(state.view(microsFromMillis(150)).instances[0]).toMatchObject({ queueDepth: 3, snapshotAgeUs: microsFromMillis(60) });
    state.onSnapshot({ ...snapshot, atUs: microsFromMillis(160), queueDepth: 9 });
    expect(state.view(microsFromMillis(170)).instances[0]).toMatchObject({ queueDepth: 3, snapshotAgeUs: microsFromMillis(80) });
    state.refresh();
    expect(state.view(microsFromMillis(170)).instances[0]).toMatchObject({ queueDepth: 9, snapshotAgeUs: microsFromMillis(10) });
  });
});

describe('ClusterState.view keeps each instance view until the instance changes', () => {
  const two = () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    state.onLifecycle({ ...identity, instanceId: 'i2', type: 'register', atUs: microsFromMillis(0) });
    state.onSnapshot(snapshot);
    return state;
  };

  it('serves the same object to the next view while nothing it shows changed, its age written at that view', () => {
    const state = two();
    const first = state.view(microsFromMillis(150)).instances[0]!;
    expect(first.snapshotAgeUs).toBe(microsFromMillis(50));
    const second = state.view(microsFromMillis(400)).instances[0]!;
    expect(second).toBe(first);
    expect(second.snapshotAgeUs).toBe(microsFromMillis(300));
  });

  it('builds a new one after a dispatch, a done, a snapshot or a lifecycle event, and only for that instance', () => {
    const state = two();
    const [i1, i2] = state.view(microsFromMillis(150)).instances;
    state.dispatched('i2', 'r1');
    const afterDispatch = state.view(microsFromMillis(160)).instances;
    expect(afterDispatch[0]).toBe(i1);
    expect(afterDispatch[1]).not.toBe(i2);
    expect(afterDispatch[1]!.inFlight).toBe(1);
    expect(i2!.inFlight).toBe(0); // what a view already handed out shows does not change (but its age)
    state.done('i2', 'r1');
    expect(state.view(microsFromMillis(170)).instances[1]!.inFlight).toBe(0);
    state.onSnapshot({ ...snapshot, queueDepth: 9, atUs: microsFromMillis(180) });
    expect(state.view(microsFromMillis(200)).instances[0]).toMatchObject({ queueDepth: 9, snapshotAgeUs: microsFromMillis(20) });
    state.onLifecycle({ ...identity, rank: 5, type: 'heartbeat', atUs: microsFromMillis(210) });
    expect(state.view(microsFromMillis(220)).instances[0]!.rank).toBe(5);
  });

  it('under on-refresh snapshots, shows a new snapshot only after refresh()', () => {
    const state = new ClusterState(microsFromMillis(3_000), { snapshots: 'on-refresh' });
    state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
    expect(state.view(microsFromMillis(50)).instances[0]!.queueDepth).toBe(0);
    state.onSnapshot(snapshot);
    expect(state.view(microsFromMillis(150)).instances[0]!.queueDepth).toBe(0);
    state.refresh();
    expect(state.view(microsFromMillis(150)).instances[0]).toMatchObject({ queueDepth: 3, snapshotAgeUs: microsFromMillis(50) });
  });

  it('carries the age into a spread or JSON copy', () => {
    const view = two().view(microsFromMillis(150)).instances[0]!;
    expect({ ...view }.snapshotAgeUs).toBe(microsFromMillis(50));
    expect(JSON.parse(JSON.stringify(view)).snapshotAgeUs).toBe(microsFromMillis(50));
  });
});

describe('ClusterState.view keeps its instances array until the instances shown change', () => {
  const event = (instanceId: string, type: LifecycleEvent['type'], atMs = 0): LifecycleEvent => ({ ...identity, instanceId, type, atUs: microsFromMillis(atMs) });
  const ids = (state: ClusterState, atMs: number) => state.view(microsFromMillis(atMs)).instances.map((i) => i.instanceId);

  it('hands the same array to the next view while no instance joins, leaves or drains; a changed instance takes its place in it', () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle(event('i1', 'register'));
    state.onLifecycle(event('i2', 'register'));
    const first = state.view(microsFromMillis(10)).instances;
    const [, i2] = first;
    state.onLifecycle(event('i2', 'heartbeat', 20)); // liveness alone: the same instances
    state.dispatched('i2', 'r1');
    const second = state.view(microsFromMillis(30)).instances;
    expect(second).toBe(first);
    expect(second[1]).not.toBe(i2);
    expect(second[1]!.inFlight).toBe(1);
  });

  it('lists the instances anew after a register, a drain, a register ending a drain, a deregister and an expiry', () => {
    const state = new ClusterState(microsFromMillis(100));
    state.onLifecycle(event('i1', 'register'));
    state.onLifecycle(event('i2', 'register'));
    const kept = state.view(microsFromMillis(10)).instances;
    expect(ids(state, 10)).toEqual(['i1', 'i2']);
    state.onLifecycle(event('i3', 'register', 20));
    expect(ids(state, 20)).toEqual(['i1', 'i2', 'i3']);
    expect(kept.map((i) => i.instanceId)).toEqual(['i1', 'i2']); // an array handed out is never resized
    state.onLifecycle(event('i2', 'drain', 30));
    expect(ids(state, 30)).toEqual(['i1', 'i3']);
    state.onLifecycle(event('i2', 'heartbeat', 40)); // still draining
    expect(ids(state, 40)).toEqual(['i1', 'i3']);
    state.onLifecycle(event('i2', 'register', 50));
    expect(ids(state, 50)).toEqual(['i1', 'i2', 'i3']);
    state.onLifecycle(event('i1', 'deregister', 60));
    expect(ids(state, 60)).toEqual(['i2', 'i3']);
    state.onLifecycle(event('i3', 'heartbeat', 100));
    expect(state.expire(microsFromMillis(160)).map((lost) => lost.instanceId)).toEqual(['i2']);
    expect(ids(state, 160)).toEqual(['i3']);
  });

  /** One step of a run: an event, a signal or a view. */
  type Step =
    | { readonly kind: 'lifecycle'; readonly id: string; readonly type: LifecycleEvent['type'] }
    | { readonly kind: 'snapshot'; readonly id: string; readonly queueDepth: number }
    | { readonly kind: 'dispatched' | 'done'; readonly id: string; readonly request: string }
    | { readonly kind: 'expire' | 'refresh' | 'view' };
  const instanceIds = fc.constantFrom('i1', 'i2', 'i3', 'i4');
  const step: fc.Arbitrary<Step> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('lifecycle' as const), id: instanceIds, type: fc.constantFrom<LifecycleEvent['type']>('register', 'heartbeat', 'drain', 'deregister') }), weight: 4 },
    { arbitrary: fc.record({ kind: fc.constant('snapshot' as const), id: instanceIds, queueDepth: fc.nat(9) }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constantFrom('dispatched' as const, 'done' as const), id: instanceIds, request: fc.constantFrom('r1', 'r2') }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constantFrom('expire' as const, 'refresh' as const) }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('view' as const) }), weight: 3 },
  );

  /** Applies a step at `atMs` (views are left to the caller). */
  const apply = (state: ClusterState, s: Step, atMs: number) => {
    const atUs = microsFromMillis(atMs);
    if (s.kind === 'lifecycle') state.onLifecycle(event(s.id, s.type, atMs));
    else if (s.kind === 'snapshot') state.onSnapshot({ ...snapshot, instanceId: s.id, queueDepth: s.queueDepth, atUs });
    else if (s.kind === 'dispatched') state.dispatched(s.id, s.request);
    else if (s.kind === 'done') state.done(s.id, s.request);
    else if (s.kind === 'expire') state.expire(atUs);
    else if (s.kind === 'refresh') state.refresh();
  };

  it('shows, at every view, what a state that never viewed before shows after the same steps', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 60 }), fc.constantFrom('immediate' as const, 'on-refresh' as const), (steps, snapshots) => {
        const state = new ClusterState(microsFromMillis(50), { snapshots });
        steps.forEach((s, k) => {
          // 10 ms a step: an instance silent for six steps expires.
          apply(state, s, 10 * k);
          if (s.kind !== 'view') return;
          const fresh = new ClusterState(microsFromMillis(50), { snapshots });
          steps.slice(0, k + 1).forEach((earlier, j) => apply(fresh, earlier, 10 * j));
          const nowUs = microsFromMillis(10 * k + 5);
          expect(state.view(nowUs).instances.map((i) => ({ ...i }))).toEqual(fresh.view(nowUs).instances.map((i) => ({ ...i })));
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('ClusterState against times from the future (a sender clock ahead, or forged)', () => {
  const YEAR_3000_US = microsFromMillis(32_503_680_000_000);

  it('expires an instance heard at a future time one heartbeat timeout after it was last heard, not after that time', () => {
    const state = new ClusterState(microsFromMillis(3_000));
    state.onLifecycle({ ...identity, type: 'register', atUs: YEAR_3000_US });
    expect(state.expire(microsFromMillis(1_000))).toEqual([]);
    expect(state.expire(microsFromMillis(3_900))).toEqual([]);
    expect(state.expire(microsFromMillis(4_100))).toEqual([{ instanceId: 'i1', inFlight: [] }]);
    expect(state.knows('i1')).toBe(false);
  });

  it('ages a snapshot dated in the future from the first view that sees it, under either snapshot mode', () => {
    for (const snapshots of ['immediate', 'on-refresh'] as const) {
      const state = new ClusterState(microsFromMillis(3_000), { snapshots });
      state.onLifecycle({ ...identity, type: 'register', atUs: microsFromMillis(0) });
      state.onSnapshot({ ...snapshot, atUs: YEAR_3000_US });
      state.refresh();
      expect(state.view(microsFromMillis(100)).instances[0], snapshots).toMatchObject({ queueDepth: 3, snapshotAgeUs: microsFromMillis(0) });
      state.refresh();
      expect(state.view(microsFromMillis(700)).instances[0], snapshots).toMatchObject({ queueDepth: 3, snapshotAgeUs: microsFromMillis(600) });
    }
  });
});

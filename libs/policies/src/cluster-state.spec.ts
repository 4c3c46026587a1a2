import { microsFromMillis } from '@sluice/contracts';
import type { LoadSnapshot } from '@sluice/contracts';
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

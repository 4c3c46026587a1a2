import { micros } from '@sluice/contracts';
import type { ClusterView, InstanceView, PolicyRequest, PrefixLookup } from '../cluster-view.js';
import type { PoolSignals } from '../flow-control/ports.js';
import type { QueuedRequest } from '../flow-control/queued-request.js';

/** Test builders for this library's specs: every field has a dull default; a test names what it is about. */
export function instanceView(overrides: Partial<InstanceView> & Pick<InstanceView, 'instanceId'>): InstanceView {
  return {
    workerId: overrides.instanceId,
    rank: 0,
    model: 'qwen3-14b',
    totalKvBlocks: 17_600,
    inFlight: 0,
    queueDepth: 0,
    batchSize: 0,
    kvUtilization: 0,
    activePrefillTokens: 0,
    activeDecodeBlocks: 0,
    snapshotAgeUs: micros(0),
    ...overrides,
  };
}

/**
 * Block ids by name, for specs that read better with names ('h0', 'p3') than with numbers: the
 * same name always gives the same id, different names different ids.
 */
const idsByName = new Map<string, number>();
export function blocksNamed(...names: string[]): number[] {
  return names.map((name) => {
    let id = idsByName.get(name);
    if (id === undefined) idsByName.set(name, (id = idsByName.size + 1));
    return id;
  });
}

export function policyRequest(overrides: Partial<PolicyRequest> = {}): PolicyRequest {
  return {
    id: 'r1',
    model: 'qwen3-14b',
    inputTokens: 512,
    maxTokens: 128,
    priority: 3,
    sloClass: 'standard',
    fairnessId: 'default',
    blockHashes: [],
    ...overrides,
  };
}

/**
 * A request as it sits in a flow queue. `seq` is the only field a test must name; times default
 * to seq (enqueued at seq µs, 60 s TTL), so a list built by seq is in FCFS order.
 */
export function queuedRequest(overrides: Partial<QueuedRequest> & Pick<QueuedRequest, 'seq'>): QueuedRequest {
  const enqueuedAtUs = overrides.enqueuedAtUs ?? micros(overrides.seq);
  return {
    id: `q${overrides.seq}`,
    flow: { fairnessId: 'default', priority: 0 },
    byteSize: 1_000,
    tokens: 640,
    arrivalUs: enqueuedAtUs,
    enqueuedAtUs,
    ttlDeadlineUs: micros(enqueuedAtUs + 60_000_000),
    sloDeadlineUs: undefined,
    payload: undefined,
    ...overrides,
  };
}

/**
 * What a saturation detector reads. `dispatchedAgoUs` lists the times (µs before now, ≥ 0) of
 * recent dispatches; `dispatchedWithin(age)` counts those at most `age` ago. `doneAgoUs` lists the
 * dispatch times of those already done (a sub-list): `inFlightDispatchedWithin(age)` leaves them
 * out. Default: nothing in flight.
 */
export function poolSignals(
  overrides: Partial<Omit<PoolSignals, 'dispatchedWithin' | 'inFlightDispatchedWithin'>> & {
    readonly dispatchedAgoUs?: readonly number[];
    readonly doneAgoUs?: readonly number[];
  } = {},
): PoolSignals {
  const { dispatchedAgoUs = [], doneAgoUs = [], ...rest } = overrides;
  const within = (agos: readonly number[], ageUs: number) => agos.filter((ago) => ago <= ageUs).length;
  return {
    endpoints: [],
    inFlightRequests: 0,
    inFlightTokens: 0,
    dispatchedWithin: (ageUs) => within(dispatchedAgoUs, ageUs),
    inFlightDispatchedWithin: (ageUs) => within(dispatchedAgoUs, ageUs) - within(doneAgoUs, ageUs),
    ...rest,
  };
}

/** A cluster view of these instances (built with `instanceView`), with a prefix lookup if given. */
export function clusterView(instances: readonly InstanceView[], prefix?: PrefixLookup): ClusterView {
  return prefix ? { instances, prefix } : { instances };
}

/** `count` instances `i0`, `i1`, … serving the default model, each with the given overrides. */
export function instanceViews(count: number, overrides: (index: number) => Partial<InstanceView> = () => ({})): InstanceView[] {
  return Array.from({ length: count }, (_, i) => instanceView({ instanceId: `i${i}`, ...overrides(i) }));
}

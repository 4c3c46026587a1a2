import { flowKeyId, type FlowKey } from './flow-key.js';
import { Heap } from '@sluice/collections';
import { micros, type Micros } from '@sluice/contracts';
import type { FairnessPolicy, FlowView, OrderingPolicy } from './ports.js';
import type { QueuedRequest } from './queued-request.js';

/** One priority band's limits and policies (0 = no limit). */
export interface BandSettings {
  readonly maxRequests: number;
  readonly maxBytes: number;
  readonly fairness: FairnessPolicy;
  readonly ordering: OrderingPolicy;
}

export interface FlowQueuesSettings {
  /** Limits over all bands (0 = no limit). */
  readonly maxRequests: number;
  readonly maxBytes: number;
  /** How long a request may wait before it is evicted (503). */
  readonly defaultRequestTtlUs: Micros;
  /** Bands by priority; a priority not listed gets `defaultBand` when its first request comes. */
  readonly bands: ReadonlyMap<number, BandSettings>;
  readonly defaultBand: BandSettings;
}

/** What a request brings to the queues; the rest (times, sequence) is stamped on enqueue. */
export interface EnqueueRequest<T> {
  readonly id: string;
  readonly flow: FlowKey;
  readonly byteSize: number;
  readonly tokens: number;
  readonly arrivalUs: Micros;
  /** The client's TTFT objective (`x-slo-ttft-ms`, in µs), for SLO-deadline ordering. */
  readonly sloTtftUs?: Micros | undefined;
  readonly payload: T;
}

/** Which limit turned a request away. */
export interface CapacityLimit {
  readonly scope: 'global' | 'band';
  readonly resource: 'requests' | 'bytes';
  readonly limit: number;
}

export type EnqueueOutcome<T> =
  | { readonly ok: true; readonly item: QueuedRequest<T> }
  | { readonly ok: false; readonly reason: 'flow_capacity'; readonly exceeded: CapacityLimit; readonly message: string };

export interface FlowStats {
  readonly fairnessId: string;
  readonly priority: number;
  readonly requests: number;
  readonly bytes: number;
}

class Entry<T> {
  removed = false;
  constructor(readonly item: QueuedRequest<T>) {}
}

class Flow<T> implements FlowView {
  readonly heap: Heap<Entry<T>>;
  length = 0;
  bytes = 0;

  constructor(
    readonly key: FlowKey,
    readonly ordinal: number,
    ordering: OrderingPolicy,
  ) {
    this.heap = new Heap((a, b) => ordering.compare(a.item, b.item));
  }

  head(): QueuedRequest<T> {
    // Entries removed by cancel or TTL are dropped lazily, when they reach the top.
    while (this.heap.peek()?.removed) this.heap.pop();
    const top = this.heap.peek();
    if (!top) throw new Error(`flow ${this.key.fairnessId}/${this.key.priority} has no head: it should have been retired`);
    return top.item;
  }
}

class Band<T> {
  /** Flows with work, in creation order (what fairness policies iterate). */
  readonly flows: Flow<T>[] = [];
  readonly flowsById = new Map<string, Flow<T>>();
  readonly fairnessState: unknown;
  requests = 0;
  bytes = 0;
  private nextOrdinal = 0;

  constructor(
    readonly priority: number,
    readonly settings: BandSettings,
  ) {
    this.fairnessState = settings.fairness.newState();
  }

  flowFor(key: FlowKey): Flow<T> {
    const id = flowKeyId(key);
    let flow = this.flowsById.get(id);
    if (!flow) {
      flow = new Flow<T>(key, this.nextOrdinal++, this.settings.ordering);
      this.flowsById.set(id, flow);
      this.flows.push(flow);
    }
    return flow;
  }

  /** An empty flow leaves the band, so idle tenants cost nothing. */
  retire(flow: Flow<T>): void {
    this.flowsById.delete(flowKeyId(flow.key));
    this.flows.splice(this.flows.indexOf(flow), 1);
  }
}

interface Located<T> {
  readonly entry: Entry<T>;
  readonly flow: Flow<T>;
  readonly band: Band<T>;
}

/**
 * The flow controller's queues (docs/behaviour.md §3): priority bands of per-tenant flows, capacity
 * limits checked at enqueue, TTL eviction, and the three-tier pick: the highest band with work,
 * a flow by the band's fairness policy, the flow's head by its ordering policy. Pure: the caller
 * passes every time and decides when to dispatch (see dispatch-cycle.ts).
 */
export class FlowQueues<T> {
  /** Highest priority first. */
  private readonly bands: Band<T>[] = [];
  private readonly bandsByPriority = new Map<number, Band<T>>();
  private readonly byId = new Map<string, Located<T>>();
  /** Every queued entry by TTL deadline; removed entries are skipped lazily. */
  private ttlIndex = new Heap<Entry<T>>((a, b) => a.item.ttlDeadlineUs - b.item.ttlDeadlineUs || a.item.seq - b.item.seq);
  private totalRequests = 0;
  private totalBytes = 0;
  private seq = 0;

  constructor(private readonly settings: FlowQueuesSettings) {
    for (const [priority, band] of settings.bands) this.addBand(priority, band);
  }

  get size(): number {
    return this.totalRequests;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Queues the request, or turns it away at once if a band or global limit would be exceeded. */
  enqueue(request: EnqueueRequest<T>, nowUs: Micros): EnqueueOutcome<T> {
    if (this.byId.has(request.id)) throw new Error(`request ${request.id} is already queued`);
    const band = this.bandFor(request.flow.priority);
    const exceeded =
      exceeds(band.settings.maxRequests, band.requests + 1, 'band', 'requests') ??
      exceeds(band.settings.maxBytes, band.bytes + request.byteSize, 'band', 'bytes') ??
      exceeds(this.settings.maxRequests, this.totalRequests + 1, 'global', 'requests') ??
      exceeds(this.settings.maxBytes, this.totalBytes + request.byteSize, 'global', 'bytes');
    if (exceeded) {
      const where = exceeded.scope === 'band' ? `priority band ${band.priority}` : 'the flow controller';
      const held = exceeded.resource === 'requests' ? (exceeded.scope === 'band' ? band.requests : this.totalRequests) : exceeded.scope === 'band' ? band.bytes : this.totalBytes;
      return {
        ok: false,
        reason: 'flow_capacity',
        exceeded,
        message: `flow control capacity: ${where} holds ${held} ${exceeded.resource === 'requests' ? 'requests' : 'bytes'} (max${exceeded.resource === 'requests' ? 'Requests' : 'Bytes'} ${exceeded.limit})`,
      };
    }

    const item: QueuedRequest<T> = {
      id: request.id,
      flow: request.flow,
      byteSize: request.byteSize,
      tokens: request.tokens,
      arrivalUs: request.arrivalUs,
      enqueuedAtUs: nowUs,
      // From the request's arrival at the gateway, not its enqueue here: the Endpoint Picker's flow
      // control runs inside the gateway, where the two are the same moment, and the TTL bounds
      // how long a client waits for a 503, hops to this process included.
      ttlDeadlineUs: micros(Math.min(request.arrivalUs, nowUs) + this.settings.defaultRequestTtlUs),
      sloDeadlineUs: request.sloTtftUs === undefined ? undefined : micros(request.arrivalUs + request.sloTtftUs),
      seq: this.seq++,
      payload: request.payload,
    };
    const entry = new Entry(item);
    const flow = band.flowFor(request.flow);
    flow.heap.push(entry);
    flow.length++;
    flow.bytes += item.byteSize;
    band.requests++;
    band.bytes += item.byteSize;
    this.totalRequests++;
    this.totalBytes += item.byteSize;
    this.ttlIndex.push(entry);
    this.byId.set(item.id, { entry, flow, band });
    return { ok: true, item };
  }

  /**
   * The request that would be dispatched next, without taking it: the highest-priority band with
   * work, its fairness policy's flow, that flow's head. Null when nothing is queued or eligible.
   */
  peek(): QueuedRequest<T> | null {
    for (const band of this.bands) {
      if (band.requests === 0) continue;
      const flow = band.settings.fairness.pick(band.flows, band.fairnessState, band.settings.ordering) as Flow<T> | null;
      if (flow) return flow.head();
    }
    return null;
  }

  /** Takes the request `peek()` returned: it leaves its queue and the band's fairness state advances. */
  take(item: QueuedRequest<T>): void {
    const located = this.byId.get(item.id);
    if (!located) throw new Error(`request ${item.id} is not queued`);
    located.band.settings.fairness.dispatched(located.band.fairnessState, located.flow);
    this.detach(located);
  }

  /** Removes a queued request (client disconnect, cancel); undefined if it is not queued here. */
  remove(id: string): QueuedRequest<T> | undefined {
    const located = this.byId.get(id);
    if (!located) return undefined;
    this.detach(located);
    return located.entry.item;
  }

  /** Evicts every request whose TTL ran out by `nowUs`, oldest deadline first. */
  expire(nowUs: Micros): QueuedRequest<T>[] {
    const evicted: QueuedRequest<T>[] = [];
    for (;;) {
      const top = this.ttlIndex.peek();
      if (!top) break;
      if (top.removed) {
        this.ttlIndex.pop();
        continue;
      }
      if (top.item.ttlDeadlineUs > nowUs) break;
      this.ttlIndex.pop();
      evicted.push(this.remove(top.item.id)!);
    }
    return evicted;
  }

  /** When the next TTL eviction is due, if anything is queued. */
  nextExpiryUs(): Micros | undefined {
    while (this.ttlIndex.peek()?.removed) this.ttlIndex.pop();
    return this.ttlIndex.peek()?.item.ttlDeadlineUs;
  }

  /** Removes and returns everything queued, highest band first (shutdown). */
  drain(): QueuedRequest<T>[] {
    const drained: QueuedRequest<T>[] = [];
    for (const band of this.bands) {
      for (const flow of [...band.flows]) {
        while (flow.length > 0) drained.push(this.remove(flow.head().id)!);
      }
    }
    return drained;
  }

  /** Queued requests and bytes per flow (for metrics); flows without work are not listed. */
  flowStats(): FlowStats[] {
    const stats: FlowStats[] = [];
    for (const band of this.bands) {
      for (const flow of band.flows) stats.push({ ...flow.key, requests: flow.length, bytes: flow.bytes });
    }
    return stats;
  }

  /**
   * Drops the bands that config does not list, that hold nothing and whose priority `inUse` no
   * longer names (no flow of it is tracked): priorities come off the wire, so without this every
   * priority ever seen would keep a band. A band listed in config stays.
   */
  retireUnusedBands(inUse: (priority: number) => boolean): void {
    for (const band of [...this.bands]) {
      if (band.requests > 0 || this.settings.bands.has(band.priority) || inUse(band.priority)) continue;
      this.bandsByPriority.delete(band.priority);
      this.bands.splice(this.bands.indexOf(band), 1);
    }
  }

  /** Queued requests per band priority, highest first (every band in use, empty ones included). */
  bandSizes(): { priority: number; requests: number; bytes: number }[] {
    return this.bands.map((b) => ({ priority: b.priority, requests: b.requests, bytes: b.bytes }));
  }

  private detach({ entry, flow, band }: Located<T>): void {
    entry.removed = true;
    const { byteSize } = entry.item;
    flow.length--;
    flow.bytes -= byteSize;
    band.requests--;
    band.bytes -= byteSize;
    this.totalRequests--;
    this.totalBytes -= byteSize;
    this.byId.delete(entry.item.id);
    if (flow.length === 0) band.retire(flow);
    this.compactTtlIndex();
  }

  /** Dispatched entries linger in the TTL index until their deadline; rebuild when they dominate. */
  private compactTtlIndex(): void {
    if (this.ttlIndex.size < 1024 || this.ttlIndex.size < 4 * this.totalRequests) return;
    const index = new Heap<Entry<T>>((a, b) => a.item.ttlDeadlineUs - b.item.ttlDeadlineUs || a.item.seq - b.item.seq);
    for (const { entry } of this.byId.values()) index.push(entry);
    this.ttlIndex = index;
  }

  private bandFor(priority: number): Band<T> {
    return this.bandsByPriority.get(priority) ?? this.addBand(priority, this.settings.defaultBand);
  }

  private addBand(priority: number, settings: BandSettings): Band<T> {
    const band = new Band<T>(priority, settings);
    this.bandsByPriority.set(priority, band);
    const at = this.bands.findIndex((b) => b.priority < priority);
    this.bands.splice(at === -1 ? this.bands.length : at, 0, band);
    return band;
  }
}

function exceeds(limit: number, wouldHold: number, scope: CapacityLimit['scope'], resource: CapacityLimit['resource']): CapacityLimit | undefined {
  return limit > 0 && wouldHold > limit ? { scope, resource, limit } : undefined;
}

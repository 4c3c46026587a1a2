import { cancelledAs, millisFromMicros, type CancelRequest, type FlowQueueBand, type LifecycleEvent, type LoadSnapshot, type Micros, type RequestDone } from '@sluice/contracts';
import {
  FlowPool,
  FlowQueues,
  FlowRegistry,
  expirySweepIntervalUs,
  legacyModeSheds,
  runDispatchCycle,
  type FlowKey,
  type FlowStats,
  type QueuedRequest,
  type SaturationDetector,
} from '@sluice/policies';
import { worthHandingBack, type HandBack, type HandoffFailure } from '../hand-back.js';
import type { StageRequest } from '../stage-request.js';
import { Periodic, type WakeUps } from '../wake-ups.js';
import type { FlowControlEffects, FlowEviction } from './flow-control.effects.js';
import type { FlowControlSettings } from './flow-control.settings.js';

export type FlowControlWakeUp = 'ttl' | 'sweep' | 'report';

/** A queued request: the request and the driver's context for it. */
interface Waiting<R, C> {
  readonly request: R;
  readonly carried: C;
}

const EVICTION_MESSAGES: Record<FlowEviction, string> = {
  ttl_expired: 'evicted from the flow-control queue: its TTL ran out before capacity freed up',
  client_disconnected: 'evicted from the flow-control queue: the client disconnected',
  timeout: 'evicted from the flow-control queue: the gateway gave up on it',
  shutdown: 'evicted from the flow-control queue: the flow controller is shutting down',
  cancelled: 'evicted from the flow-control queue: the gateway ended or re-submitted it',
};

/** What a stopping flow controller gives back: the gateway queues it again at a replica, or here once restarted. */
const SHUTDOWN_HAND_BACK: HandBack = { resumeAt: 'flow', reason: 'stage_shutdown', message: 'the flow controller holding it shut down' };

/**
 * The flow-control stage (docs/behaviour.md §3): requests from admission are queued by band and
 * flow and released to the router by the gated dispatch cycle whenever the saturation detector
 * sees room; they are evicted on TTL, cancel or shutdown. The cycle runs on every event that can
 * add work or free capacity (an arrival, a snapshot, a lifecycle event, a done event), so nothing
 * waits while there is capacity, and one wake-up is kept at the earliest TTL deadline. With flow
 * control disabled (legacy mode) nothing is queued and sheddable requests are shed while the pool
 * is saturated. Pure: the caller passes the time of every call.
 */
export class FlowControlStage<R extends StageRequest, C = undefined> {
  private expirySuspended = false;
  private readonly enabled: boolean;
  private readonly queues: FlowQueues<Waiting<R, C>>;
  /** The flows known now: a cap on how many, and idle ones forgotten. */
  private readonly flows: FlowRegistry;
  private readonly detector: SaturationDetector;
  private readonly pool: FlowPool;
  private readonly queued = new Map<string, number>();
  /** Queued requests per model, then per priority band: what the queue report says. */
  private readonly queuedBands = new Map<string, Map<number, number>>();
  private readonly sweep: Periodic<FlowControlWakeUp>;
  /** The queue report's period; absent when it is off. */
  private readonly report: Periodic<FlowControlWakeUp> | undefined;
  /** The pending TTL wake-up, if one is asked for. */
  private ttlAtUs: Micros | undefined;
  /** Set at shutdown: what becomes of what is queued, and of what still arrives. */
  private stoppedWith: 'hand-back' | 'evict' | undefined;

  constructor(
    settings: FlowControlSettings,
    private readonly effects: FlowControlEffects<R, C>,
    private readonly wakeUps: WakeUps<FlowControlWakeUp>,
  ) {
    this.enabled = settings.enabled;
    this.queues = new FlowQueues(settings.queues);
    this.flows = new FlowRegistry(settings.flows);
    this.detector = settings.detector;
    this.pool = new FlowPool(settings.heartbeatTimeoutUs);
    this.sweep = new Periodic<FlowControlWakeUp>('sweep', expirySweepIntervalUs(settings.heartbeatTimeoutUs), wakeUps);
    this.report = settings.queueReportIntervalUs > 0 ? new Periodic<FlowControlWakeUp>('report', settings.queueReportIntervalUs, wakeUps) : undefined;
  }

  get mode(): 'queue' | 'legacy' {
    return this.enabled ? 'queue' : 'legacy';
  }

  /** Starts the sweep that forgets silent instances, dispatches past their deadline and idle flows. */
  start(nowUs: Micros): void {
    this.sweep.start(nowUs);
    this.report?.start(nowUs);
  }

  submit(request: R, nowUs: Micros, carried: C): void {
    if (this.stoppedWith !== undefined) {
      // A handoff already on its way when the intake closed: given back like the queued ones.
      this.effects.arrived(request, carried, { outcome: 'shutdown' });
      if (this.stoppedWith === 'hand-back') this.effects.handBack(request, carried, SHUTDOWN_HAND_BACK, undefined);
      else this.effects.reject(request, carried, 'shutdown', EVICTION_MESSAGES.shutdown);
      return;
    }
    // Every arrival counts for its flow, queued or not: the flow's metric series are its state too.
    const flow: FlowKey = { fairnessId: request.fairnessId, priority: request.priority };
    const tracked = this.flows.arrive(flow, nowUs);
    if (!tracked.ok) {
      this.effects.arrived(request, carried, { outcome: 'too_many_flows', maxFlows: tracked.maxFlows });
      this.effects.reject(request, carried, 'too_many_flows', tracked.message);
      return;
    }
    if (tracked.recycled) this.forgetFlows([tracked.recycled]);
    if (!this.enabled) {
      // Legacy mode: no queue; only sheddable requests are refused, and only while saturated.
      const saturation = this.saturation(nowUs);
      if (legacyModeSheds(request.priority, saturation)) {
        this.effects.arrived(request, carried, { outcome: 'pool_saturated', saturation });
        this.effects.reject(request, carried, 'pool_saturated', `the pool is saturated (${saturation.toFixed(2)}) and the request is sheddable (priority ${request.priority})`);
        return;
      }
      this.effects.arrived(request, carried, { outcome: 'passed_through', saturation });
      request.timings.flowQueueMs = 0;
      this.release(request, carried, saturation, nowUs, nowUs);
      return;
    }
    const outcome = this.queues.enqueue(
      {
        id: request.id,
        flow,
        byteSize: request.bodyBytes,
        tokens: request.inputTokens + request.maxTokens,
        arrivalUs: request.arrivalUs,
        sloTtftUs: request.sloTtftUs,
        payload: { request, carried },
      },
      nowUs,
    );
    if (!outcome.ok) {
      this.effects.arrived(request, carried, { outcome: 'flow_capacity', exceeded: outcome.exceeded });
      this.effects.reject(request, carried, 'flow_capacity', outcome.message);
      return;
    }
    this.flows.enqueued(flow);
    this.queued.set(request.model, (this.queued.get(request.model) ?? 0) + 1);
    this.countBand(request.model, request.priority, +1);
    this.effects.arrived(request, carried, { outcome: 'enqueued', queueSize: this.queues.size });
    this.dispatch(nowUs);
    this.armTtl();
  }

  /** The router did not take a released request: it leaves the books and ends here. */
  /**
   * The router did not take a released request: it leaves the pool's books. No responder or no ack
   * in time: given back to the gateway to re-submit to the router; anything else ends it here.
   */
  handoffRefused(request: R, carried: C, message: string, why: HandoffFailure = 'nack'): void {
    this.pool.done(request.id);
    if (worthHandingBack(why)) this.effects.handBack(request, carried, { resumeAt: 'router', reason: 'next_unavailable', message }, undefined);
    else this.effects.reject(request, carried, 'router_unavailable', message);
  }

  onLifecycle(event: LifecycleEvent, nowUs: Micros): void {
    this.pool.onLifecycle(event);
    this.dispatch(nowUs);
  }

  /** A fresher snapshot can show freed capacity. */
  onSnapshot(snapshot: LoadSnapshot, nowUs: Micros): void {
    this.pool.onSnapshot(snapshot);
    this.dispatch(nowUs);
  }

  onDone(done: RequestDone, nowUs: Micros): void {
    // A prefill instance's part ends; the request goes on decoding elsewhere and still counts.
    if (done.prefillOnly) return;
    if (this.pool.done(done.requestId)) this.dispatch(nowUs);
  }

  /** The gateway let the request go (client disconnect, its deadline): still queued, it never reaches a worker. */
  onCancel(cancel: CancelRequest, nowUs: Micros): void {
    const item = this.queues.remove(cancel.requestId);
    if (item) this.evict(item, cancelledAs(cancel.reason), nowUs);
  }

  wake(kind: FlowControlWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    switch (kind) {
      case 'ttl':
        if (atUs !== this.ttlAtUs) return; // superseded by an earlier one, or stopped
        this.ttlAtUs = undefined;
        for (const item of this.queues.expire(nowUs)) this.evict(item, 'ttl_expired', nowUs);
        this.armTtl();
        return;
      case 'report':
        // Every period, changed or not: its age tells admission how fresh it is, and an empty one that the queue is empty.
        if (this.report?.due(atUs) === true) this.effects.queueReported(nowUs, this.queueBands());
        return;
      case 'sweep':
        if (!this.sweep.due(atUs)) return;
        if (!this.expirySuspended) this.pool.expire(nowUs);
        // Idle flows go whatever the bus does: their idleness is this controller's own observation.
        this.forgetFlows(this.flows.collect(nowUs));
        return;
    }
  }

  /** The stage's bus connection is down: instances cannot be judged by their silence until it is back. */
  suspendExpiry(): void {
    this.expirySuspended = true;
  }

  /** The connection is back: every instance counts as heard now. */
  resumeExpiry(nowUs: Micros): void {
    this.expirySuspended = false;
    this.pool.touchAll(nowUs);
  }

  /**
   * Shutdown: nothing more is taken, and every queued request is handed back to its gateway to be
   * queued again elsewhere (another replica, or this one once restarted): **sluice** differs from
   * the Endpoint Picker, which evicts them with 500, so a rolling restart fails no request. With
   * `evict`, the Endpoint Picker's way. Returns how many left the queue.
   */
  stop(queued: 'hand-back' | 'evict' = 'hand-back'): number {
    this.stoppedWith = queued;
    this.sweep.stop();
    this.report?.stop();
    this.ttlAtUs = undefined;
    const drained = this.queues.drain();
    for (const item of drained) {
      // No clock at shutdown, and nothing is collected after it: the flows' books are left as they are.
      if (queued === 'evict') {
        this.evict(item, 'shutdown', undefined);
        continue;
      }
      this.left(item, undefined);
      const { request, carried } = item.payload;
      this.effects.handBack(request, carried, SHUTDOWN_HAND_BACK, item.enqueuedAtUs);
    }
    return drained.length;
  }

  /** The detector's reading of the pool at `nowUs`. */
  saturation(nowUs: Micros): number {
    return this.detector.saturation(this.pool.signals(nowUs));
  }

  /** Queued requests and bytes per flow (the queue-size gauges). */
  flowStats(): FlowStats[] {
    return this.queues.flowStats();
  }

  /** Flows tracked now (with queued requests, or idle and not yet collected). */
  get trackedFlows(): number {
    return this.flows.size;
  }

  /** Queued requests per model (Dynamo's queued-requests gauge). */
  queuedByModel(): ReadonlyMap<string, number> {
    return this.queued;
  }

  /** Queued requests by model and priority band, bands with none left out (the queue report). */
  queueBands(): FlowQueueBand[] {
    const bands: FlowQueueBand[] = [];
    for (const [model, byPriority] of this.queuedBands) for (const [priority, requests] of byPriority) bands.push({ model, priority, requests });
    return bands;
  }

  /** Requests this controller dispatched and has not seen done. */
  get inFlight(): number {
    return this.pool.inFlight;
  }

  /** The gated dispatch cycle: one view of the endpoints, live in-flight counts (docs/behaviour.md §3). */
  private dispatch(nowUs: Micros): void {
    if (this.stoppedWith !== undefined || this.queues.size === 0) return;
    this.effects.cycleStarted();
    const signals = this.pool.signals(nowUs);
    const result = runDispatchCycle(
      this.queues,
      () => this.detector.saturation(signals),
      (item, saturation) => {
        this.left(item, nowUs);
        const { request, carried } = item.payload;
        request.timings.flowQueueMs = millisFromMicros(nowUs) - millisFromMicros(item.enqueuedAtUs);
        this.release(request, carried, saturation, nowUs, item.enqueuedAtUs);
      },
    );
    this.effects.cycleFinished(result);
  }

  /** Counted in flight before it leaves, so the next saturation reading sees it. */
  private release(request: R, carried: C, saturation: number, nowUs: Micros, enqueuedAtUs: Micros): void {
    this.pool.dispatched(request.id, request.inputTokens + request.maxTokens, nowUs, request.deadlineUs);
    this.effects.handOn(request, carried, { saturation, enqueuedAtUs });
  }

  private evict(item: QueuedRequest<Waiting<R, C>>, reason: FlowEviction, nowUs: Micros | undefined): void {
    this.left(item, nowUs);
    const { request, carried } = item.payload;
    this.effects.evict(request, carried, reason, EVICTION_MESSAGES[reason], item.enqueuedAtUs);
  }

  /** Books a request out of the queue (the per-model count; its flow's, given the time). */
  private left(item: QueuedRequest<Waiting<R, C>>, nowUs: Micros | undefined): void {
    if (nowUs !== undefined) this.flows.leftQueue(item.flow, nowUs);
    const model = item.payload.request.model;
    const left = (this.queued.get(model) ?? 1) - 1;
    if (left > 0) this.queued.set(model, left);
    else this.queued.delete(model);
    this.countBand(model, item.flow.priority, -1);
  }

  private countBand(model: string, priority: number, delta: 1 | -1): void {
    let byPriority = this.queuedBands.get(model);
    if (!byPriority) this.queuedBands.set(model, (byPriority = new Map<number, number>()));
    const n = (byPriority.get(priority) ?? 0) + delta;
    if (n > 0) byPriority.set(priority, n);
    else byPriority.delete(priority);
    if (byPriority.size === 0) this.queuedBands.delete(model);
  }

  /** Flows forgotten (idle past the GC timeout, or making room for a new one): bands nobody uses go too. */
  private forgetFlows(flows: readonly FlowKey[]): void {
    if (flows.length === 0) return;
    this.queues.retireUnusedBands((priority) => this.flows.hasPriority(priority));
    this.effects.flowsForgotten(flows);
  }

  /** One wake-up, at the earliest TTL deadline among the queued requests. */
  private armTtl(): void {
    const next = this.queues.nextExpiryUs();
    if (next === undefined || this.stoppedWith !== undefined) return;
    if (this.ttlAtUs !== undefined && this.ttlAtUs <= next) return;
    this.ttlAtUs = next;
    this.wakeUps.wakeAt('ttl', next);
  }
}

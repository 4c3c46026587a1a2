import { epochMicros, type Bus } from '@sluice/bus';
import {
  WorkerFaultsSchema,
  micros,
  subjects,
  type CancelRequest,
  type EndFrame,
  type ErrorFrame,
  type InferenceRequest,
  type InstanceIdentity,
  type KvEvent,
  type LifecycleEvent,
  type LoadSnapshot,
  type OutcomeReason,
  type RequestDone,
  type TokensFrame,
  type WorkerFaults,
} from '@sluice/contracts';
import type { InstanceEngine, StepResult } from '@sluice/engine';
import { SpanKind, context, trace, type Context, type Span, type Tracer } from '@sluice/telemetry';
import type { SteppedInstance } from './step-scheduler.js';
import type { WorkerMetrics } from './worker.metrics.js';

/** A request on this instance, with the engine-time marks its metrics and spans need. */
interface Tracked {
  readonly request: InferenceRequest;
  readonly span: Span;
  readonly arrivalUs: number;
  admittedUs?: number;
  cachedTokens: number;
  firstTokenUs?: number;
  lastTokenUs?: number;
  generated: number;
}

export interface InstanceClock {
  /** Engine µs → wall-clock epoch ms (frames carry wall time). */
  wallMs(engineUs: number): number;
  /** Engine µs → real seconds (metrics are real durations). */
  realSeconds(engineUs: number): number;
}

const INJECTED: Record<WorkerFaults['failureTypes'][number], { reason: OutcomeReason; message: string }> = {
  rate_limit: { reason: 'injected_rate_limit', message: 'injected failure: rate limit exceeded' },
  server_error: { reason: 'injected_server_error', message: 'injected failure: internal server error' },
  invalid_request: { reason: 'injected_invalid_request', message: 'injected failure: invalid request' },
};

/**
 * One engine on the bus: takes submissions, turns step results into frames on each request's
 * inbox, reports done events, KV events, load snapshots and lifecycle for its instance, and keeps
 * vLLM's metrics. Holds the instance's fault knobs (slow-down, failure injection, hang).
 */
export class InstanceHost implements SteppedInstance {
  private readonly tracked = new Map<string, Tracked>();
  /** Requests accepted while `hang` is on: never scheduled, ended only by cancel or deadline. */
  private readonly hung = new Map<string, Span>();
  private faults: WorkerFaults = WorkerFaultsSchema.parse({});
  private readonly labels: { model_name: string; engine: string };

  constructor(
    readonly identity: InstanceIdentity,
    private readonly engine: InstanceEngine,
    private readonly bus: Bus,
    private readonly tracer: Tracer,
    private readonly metrics: WorkerMetrics,
    private readonly clock: InstanceClock,
    private readonly random: () => number,
    /** loadIntervalMs = 0: publish a load snapshot on every change (arrival, step, cancel). */
    private readonly publishOnChange = false,
  ) {
    this.labels = { model_name: identity.model, engine: String(identity.rank) };
  }

  get instanceId(): string {
    return this.identity.instanceId;
  }

  get slowdown(): number {
    return this.faults.slowdown;
  }

  currentFaults(): WorkerFaults {
    return this.faults;
  }

  setFaults(change: Partial<WorkerFaults>): WorkerFaults {
    this.faults = WorkerFaultsSchema.parse({ ...this.faults, ...change });
    return this.faults;
  }

  /** Returns true when the engine took the request (the scheduler should be woken). */
  accept(request: InferenceRequest, parent: Context, nowUs: number): boolean {
    const span = this.tracer.startSpan(
      'worker.request',
      {
        kind: SpanKind.CONSUMER,
        startTime: this.clock.wallMs(nowUs),
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subjects.workerSubmit(this.instanceId),
          'sluice.request.id': request.id,
          'sluice.worker.instance': this.instanceId,
          'gen_ai.request.model': request.model,
          'gen_ai.usage.input_tokens': request.inputTokens,
          'gen_ai.request.max_tokens': request.maxTokens,
        },
      },
      parent,
    );
    if (this.faults.failureRate > 0 && this.random() < this.faults.failureRate) {
      const type = this.faults.failureTypes[Math.floor(this.random() * this.faults.failureTypes.length)] ?? 'server_error';
      this.endWithError(request, span, INJECTED[type].reason, INJECTED[type].message);
      return false;
    }
    if (this.faults.hang) {
      span.setAttribute('sluice.worker.hang', true);
      this.hung.set(request.id, span);
      return false;
    }
    const result = this.engine.enqueue(request, micros(nowUs));
    if (!result.accepted) {
      span.setAttribute('sluice.worker.drop_reason', result.reason);
      this.endWithError(request, span, 'unservable', result.message);
      return false;
    }
    this.metrics.promptTokens.inc(this.labels, request.inputTokens);
    this.tracked.set(request.id, { request, span, arrivalUs: nowUs, cachedTokens: 0, generated: 0 });
    this.loadChanged();
    return true;
  }

  cancel(requestId: string, nowUs: number, reason: CancelRequest['reason']): void {
    const hungSpan = this.hung.get(requestId);
    if (hungSpan) {
      this.hung.delete(requestId);
      hungSpan.setAttribute('sluice.worker.outcome', 'cancelled');
      hungSpan.end();
      this.publishDone(requestId, reason);
      return;
    }
    const entry = this.tracked.get(requestId);
    if (!entry) return;
    this.engine.cancel(requestId, micros(nowUs));
    this.tracked.delete(requestId);
    this.loadChanged();
    entry.span.setAttribute('sluice.worker.outcome', 'cancelled');
    entry.span.end(this.clock.wallMs(nowUs));
    this.publishDone(requestId, reason);
  }

  holds(requestId: string): boolean {
    return this.tracked.has(requestId) || this.hung.has(requestId);
  }

  hasWork(): boolean {
    return this.engine.hasWork();
  }

  canStep(nowUs: number): boolean {
    return this.engine.canStep(micros(nowUs));
  }

  nextReadyUs(): number | undefined {
    return this.engine.nextReadyUs();
  }

  beginStep(startUs: number): StepResult {
    const result = this.engine.step(micros(startUs));
    for (const { requestId, cachedTokens } of result.admitted) {
      const entry = this.tracked.get(requestId);
      if (!entry) continue;
      this.metrics.prefixQueries.inc(this.labels, entry.request.inputTokens);
      this.metrics.prefixHits.inc(this.labels, cachedTokens);
      if (entry.admittedUs === undefined) {
        entry.admittedUs = startUs;
        entry.cachedTokens = cachedTokens;
      }
    }
    for (const requestId of result.preempted) {
      this.metrics.preemptions.inc(this.labels);
      const entry = this.tracked.get(requestId);
      entry?.span.addEvent('preempted', { 'sluice.worker.generated_tokens': entry.generated }, this.clock.wallMs(startUs));
    }
    if (result.kvStored.length > 0 || result.kvRemoved.length > 0) {
      const event: KvEvent = { instanceId: this.instanceId, atUs: micros(this.clock.wallMs(startUs) * 1000), stored: [...result.kvStored], removed: [...result.kvRemoved] };
      this.bus.publish(subjects.workerKv(this.instanceId), event);
    }
    this.loadChanged();
    return result;
  }

  endStep(result: StepResult, endUs: number): void {
    const tokenUs = endUs + result.outputDelayUs;
    const atMs = this.clock.wallMs(tokenUs);
    for (const { request, count } of result.tokens) {
      const requestId = request.id;
      const entry = this.tracked.get(requestId);
      if (!entry || count === 0) continue; // cancelled during the step, or a prefill chunk
      if (entry.firstTokenUs === undefined) {
        entry.firstTokenUs = tokenUs;
        this.metrics.ttft.observe(this.labels, this.clock.realSeconds(tokenUs - entry.arrivalUs));
      } else if (entry.lastTokenUs !== undefined) {
        this.metrics.itl.observe(this.labels, this.clock.realSeconds(tokenUs - entry.lastTokenUs));
      }
      entry.lastTokenUs = tokenUs;
      entry.generated += count;
      const frame: TokensFrame = { type: 'tokens', requestId, count, atMs, instanceId: this.instanceId };
      this.bus.publish(entry.request.replyTo, frame);
      this.metrics.generationTokens.inc(this.labels, count);
    }
    for (const requestId of result.completed) this.complete(requestId, tokenUs);
  }

  private complete(requestId: string, endUs: number): void {
    const entry = this.tracked.get(requestId);
    if (!entry) return;
    this.tracked.delete(requestId);
    const admitted = entry.admittedUs ?? endUs;
    const firstToken = entry.firstTokenUs ?? endUs;
    const ms = (us: number) => this.clock.realSeconds(us) * 1000;
    const end: EndFrame = {
      type: 'end',
      requestId,
      reason: 'ok',
      outputTokens: entry.generated,
      instanceId: this.instanceId,
      timings: {
        ...entry.request.timings,
        workerQueueMs: ms(admitted - entry.arrivalUs),
        prefillMs: ms(firstToken - admitted),
        decodeMs: ms(endUs - firstToken),
      },
    };
    this.bus.publish(entry.request.replyTo, end);
    this.publishDone(requestId, 'ok');
    const m = this.metrics;
    m.requestSuccess.inc({ ...this.labels, finished_reason: 'length' });
    m.e2e.observe(this.labels, this.clock.realSeconds(endUs - entry.arrivalUs));
    m.queueTime.observe(this.labels, this.clock.realSeconds(admitted - entry.arrivalUs));
    m.prefillTime.observe(this.labels, this.clock.realSeconds(firstToken - admitted));
    m.decodeTime.observe(this.labels, this.clock.realSeconds(endUs - firstToken));
    m.requestPromptTokens.observe(this.labels, entry.request.inputTokens);
    m.requestGenerationTokens.observe(this.labels, entry.generated);
    this.phaseSpans(entry, admitted, firstToken, endUs);
    entry.span.setAttributes({ 'gen_ai.usage.output_tokens': entry.generated, 'sluice.worker.outcome': 'completed' });
    entry.span.end(this.clock.wallMs(endUs));
  }

  /** queued → prefill → decode as child spans, stamped after the fact with the engine's times. */
  private phaseSpans(entry: Tracked, admittedUs: number, firstTokenUs: number, endUs: number): void {
    const parent = trace.setSpan(context.active(), entry.span);
    const phase = (name: string, fromUs: number, toUs: number, attributes: Record<string, number> = {}) =>
      this.tracer.startSpan(name, { startTime: this.clock.wallMs(fromUs), attributes }, parent).end(this.clock.wallMs(toUs));
    phase('worker.queued', entry.arrivalUs, admittedUs);
    phase('worker.prefill', admittedUs, firstTokenUs, {
      'sluice.worker.cached_tokens': entry.cachedTokens,
      'sluice.worker.prefill_tokens': entry.request.inputTokens - entry.cachedTokens,
    });
    phase('worker.decode', firstTokenUs, endUs, { 'gen_ai.usage.output_tokens': entry.generated });
  }

  private endWithError(request: InferenceRequest, span: Span, reason: OutcomeReason, message: string): void {
    span.setAttribute('sluice.worker.outcome', reason);
    span.end();
    const frame: ErrorFrame = { type: 'error', requestId: request.id, stage: 'worker', reason, message };
    this.bus.publish(request.replyTo, frame);
    this.publishDone(request.id, reason);
  }

  private publishDone(requestId: string, reason: OutcomeReason): void {
    const done: RequestDone = { requestId, instanceId: this.instanceId, reason, atUs: epochMicros() };
    this.bus.publish(subjects.workerDone(this.instanceId), done);
  }

  publishLifecycle(type: LifecycleEvent['type']): void {
    const event: LifecycleEvent = { ...this.identity, type, atUs: epochMicros() };
    this.bus.publish(subjects.workerLifecycle(this.instanceId), event);
  }

  private loadChanged(): void {
    if (this.publishOnChange) this.publishLoad();
  }

  publishLoad(): LoadSnapshot {
    const snapshot: LoadSnapshot = {
      instanceId: this.instanceId,
      workerId: this.identity.workerId,
      rank: this.identity.rank,
      atUs: epochMicros(),
      ...this.engine.snapshot(),
    };
    this.bus.publish(subjects.workerLoad(this.instanceId), snapshot);
    this.metrics.running.set(this.labels, snapshot.batchSize);
    this.metrics.waiting.set(this.labels, snapshot.queueDepth);
    this.metrics.kvUsage.set(this.labels, snapshot.kvUtilization);
    return snapshot;
  }
}

import type { Bus } from '@sluice/bus';
import {
  subjects,
  type CancelRequest,
  type EndFrame,
  type InferenceRequest,
  type InstanceIdentity,
  type LifecycleEvent,
  type LoadSnapshot,
  type OutcomeReason,
  type RequestDone,
  type TokensFrame,
} from '@sluice/contracts';
import type { InstanceEngine, StepResult } from '@sluice/engine';
import { SpanKind, type Context, type Span, type Tracer } from '@sluice/telemetry';
import type { SteppedInstance } from './step-scheduler.js';
import type { WorkerMetrics } from './worker.metrics.js';

interface Tracked {
  readonly request: InferenceRequest;
  readonly span: Span;
  readonly enqueuedUs: number;
  firstStepUs?: number;
  firstTokenUs?: number;
  generated: number;
}

/** Converts the scheduler's monotonic µs into wall-clock epoch ms for frames. */
export type WallClock = (monotonicUs: number) => number;

/**
 * One engine on the bus: takes submissions, turns step results into frames on each request's
 * inbox, and reports done events, load snapshots and lifecycle for its instance.
 */
export class InstanceHost implements SteppedInstance {
  private readonly tracked = new Map<string, Tracked>();

  constructor(
    readonly identity: InstanceIdentity,
    private readonly engine: InstanceEngine,
    private readonly bus: Bus,
    private readonly tracer: Tracer,
    private readonly metrics: WorkerMetrics,
    private readonly wallMs: WallClock,
  ) {}

  get instanceId(): string {
    return this.identity.instanceId;
  }

  /** Returns false when the request can never be served here (then it has been ended). */
  accept(request: InferenceRequest, parent: Context, nowUs: number): boolean {
    const span = this.tracer.startSpan(
      'worker.request',
      {
        kind: SpanKind.CONSUMER,
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
    const result = this.engine.enqueue(request, nowUs);
    if (!result.accepted) {
      span.setAttribute('sluice.worker.outcome', 'unservable');
      span.end();
      this.bus.publish(request.replyTo, { type: 'error', requestId: request.id, stage: 'worker', reason: 'unservable', message: result.message });
      this.publishDone(request.id, 'unservable');
      return false;
    }
    this.metrics.promptTokens.inc(this.labels(), request.inputTokens);
    this.tracked.set(request.id, { request, span, enqueuedUs: nowUs, generated: 0 });
    return true;
  }

  /** The gateway gave up on the request (client gone, or its deadline passed): free it. */
  cancel(requestId: string, nowUs: number, reason: CancelRequest['reason']): void {
    const entry = this.tracked.get(requestId);
    if (!entry) return;
    this.engine.cancel(requestId, nowUs);
    this.tracked.delete(requestId);
    entry.span.setAttribute('sluice.worker.outcome', 'cancelled');
    entry.span.end();
    this.publishDone(requestId, reason);
  }

  holds(requestId: string): boolean {
    return this.tracked.has(requestId);
  }

  hasWork(): boolean {
    return this.engine.hasWork();
  }

  beginStep(startUs: number): StepResult {
    const result = this.engine.step(startUs);
    for (const { requestId } of result.tokens) {
      const entry = this.tracked.get(requestId);
      if (entry && entry.firstStepUs === undefined) entry.firstStepUs = startUs;
    }
    return result;
  }

  endStep(result: StepResult, endUs: number): void {
    const atMs = this.wallMs(endUs);
    for (const { requestId, count } of result.tokens) {
      const entry = this.tracked.get(requestId);
      if (!entry) continue; // cancelled during the step
      entry.firstTokenUs ??= endUs;
      entry.generated += count;
      const frame: TokensFrame = { type: 'tokens', requestId, count, atMs, instanceId: this.instanceId };
      this.bus.publish(entry.request.replyTo, frame);
      this.metrics.generationTokens.inc(this.labels(), count);
    }
    for (const requestId of result.completed) this.complete(requestId, endUs);
  }

  private complete(requestId: string, endUs: number): void {
    const entry = this.tracked.get(requestId);
    if (!entry) return;
    this.tracked.delete(requestId);
    const firstStep = entry.firstStepUs ?? endUs;
    const firstToken = entry.firstTokenUs ?? endUs;
    const end: EndFrame = {
      type: 'end',
      requestId,
      reason: 'ok',
      outputTokens: entry.generated,
      instanceId: this.instanceId,
      timings: {
        ...entry.request.timings,
        workerQueueMs: (firstStep - entry.enqueuedUs) / 1000,
        prefillMs: (firstToken - firstStep) / 1000,
        decodeMs: (endUs - firstToken) / 1000,
      },
    };
    this.bus.publish(entry.request.replyTo, end);
    this.publishDone(requestId, 'ok');
    this.metrics.requestSuccess.inc({ ...this.labels(), finished_reason: 'length' });
    entry.span.setAttribute('gen_ai.usage.output_tokens', entry.generated);
    entry.span.setAttribute('sluice.worker.outcome', 'completed');
    entry.span.end();
  }

  private publishDone(requestId: string, reason: OutcomeReason): void {
    const done: RequestDone = { requestId, instanceId: this.instanceId, reason, atMs: Date.now() };
    this.bus.publish(subjects.workerDone(this.instanceId), done);
  }

  publishLifecycle(type: LifecycleEvent['type']): void {
    const event: LifecycleEvent = { ...this.identity, type, atMs: Date.now() };
    this.bus.publish(subjects.workerLifecycle(this.instanceId), event);
  }

  publishLoad(): LoadSnapshot {
    const snapshot: LoadSnapshot = {
      instanceId: this.instanceId,
      workerId: this.identity.workerId,
      atMs: Date.now(),
      ...this.engine.snapshot(),
    };
    this.bus.publish(subjects.workerLoad(this.instanceId), snapshot);
    return snapshot;
  }

  private labels(): { model_name: string; engine: string } {
    return { model_name: this.identity.model, engine: String(this.identity.rank) };
  }
}

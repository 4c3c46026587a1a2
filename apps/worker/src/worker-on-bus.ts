import { sendMigrateFrame, stampSent, type Bus } from '@sluice/bus';
import {
  micros,
  subjects,
  TOKENS_BATCH_MAX_FRAMES,
  type BlockId,
  type EndFrame,
  type ErrorFrame,
  type KvEvent,
  type LifecycleEvent,
  type LoadSnapshot,
  type Micros,
  type OutcomeReason,
  type RequestDone,
  type TokensBatchFrame,
  type TokensFrame,
} from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { InstanceCore, InstanceWakeUp, WorkerCompletion, WorkerEffects, WorkerWakeUp } from '@sluice/stages';
import { SpanKind, context, trace, type Tracer } from '@sluice/telemetry';
import type { LiveHeld } from './live-held.js';
import type { RealTimeWakeUps } from './real-time-wake-ups.js';
import type { WorkerMetrics } from './worker.metrics.js';

/** The worker's engine clock against the wall clock: the engine runs `timeScale` times faster. */
export interface EngineClock {
  /** Engine µs → epoch µs (what the wire carries). */
  wallUs(engineUs: Micros): Micros;
  /** Engine µs → real seconds (metrics are real durations). */
  realSeconds(engineUs: number): number;
}

type Instance = InstanceCore<LiveHeld>;

/**
 * The worker core's effects on the bus: frames on each request's inbox (tokens, end, error),
 * signals on the instance's own subjects (done, KV, load, lifecycle), vLLM's metrics, a span per
 * request with its queued/prefill/decode phases, and wake-ups on the real-time scheduler.
 */
export class WorkerOnBus implements WorkerEffects<LiveHeld> {
  /**
   * The requests the step being ended completes (the core calls stepEnded, then tokens, then
   * completed, in one turn): their last tokens frame is folded into the end frame, one message
   * fewer per request (all of a 1-token request's output).
   */
  private finishing: readonly string[] = [];
  /** Tokens frames of this turn not sent yet, by the gateway that owns their requests (see flushTokens). */
  private readonly unsentTokens = new Map<string, TokensFrame[]>();

  constructor(
    private readonly bus: Bus,
    private readonly tracer: Tracer,
    private readonly metrics: WorkerMetrics,
    private readonly clock: EngineClock,
    private readonly wakeUps: RealTimeWakeUps,
    /** The worker's own ticks (load snapshots, heartbeats). */
    private readonly tick: (kind: WorkerWakeUp, atUs: Micros) => void,
  ) {}

  received(instance: Instance, held: LiveHeld, atUs: Micros): void {
    const { request } = held;
    held.span = this.tracer.startSpan(
      'worker.request',
      {
        kind: SpanKind.CONSUMER,
        startTime: this.wallMs(atUs),
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subjects.workerSubmit(instance.instanceId),
          'sluice.request.id': request.id,
          'sluice.request.attempt': request.attempt,
          'sluice.worker.instance': instance.instanceId,
          'gen_ai.request.model': request.model,
          'gen_ai.usage.input_tokens': request.inputTokens,
          'gen_ai.request.max_tokens': request.maxTokens,
        },
      },
      held.parent,
    );
  }

  accepted(instance: Instance, held: LiveHeld): void {
    this.metrics.promptTokens.inc(labels(instance), held.inputTokens);
  }

  hung(_instance: Instance, held: LiveHeld): void {
    held.span?.setAttribute('sluice.worker.hang', true);
  }

  admitted(instance: Instance, held: LiveHeld, cachedTokens: number): void {
    this.metrics.prefixQueries.inc(labels(instance), held.inputTokens);
    this.metrics.prefixHits.inc(labels(instance), cachedTokens);
  }

  preempted(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.metrics.preemptions.inc(labels(instance));
    held.span?.addEvent('preempted', { 'sluice.worker.generated_tokens': held.generated }, this.wallMs(atUs));
  }

  stepEnded(instance: Instance, result: StepResult<LiveHeld>, _tokenUs: Micros): void {
    this.finishing = result.completed;
    // Most steps refuse nothing: no label lookup for them.
    if (result.kvAllocationFailures > 0) this.metrics.kvAllocationFailures.inc(labels(instance), result.kvAllocationFailures);
  }

  tokens(instance: Instance, held: LiveHeld, count: number, atUs: Micros, previousUs: Micros | undefined): void {
    if (previousUs === undefined) this.metrics.ttft.observe(labels(instance), this.clock.realSeconds(atUs - held.workerArrivalUs));
    else this.metrics.itl.observe(labels(instance), this.clock.realSeconds(atUs - previousUs));
    this.metrics.generationTokens.inc(labels(instance), count);
    // The step's last tokens ride in the end frame that follows at once (it says how many the attempt made).
    if (this.finishing.includes(held.id)) return;
    const frame: TokensFrame = { type: 'tokens', requestId: held.id, attempt: held.request.attempt, count, generated: held.generated, atMs: this.wallMs(atUs), instanceId: instance.instanceId };
    const gateway = held.request.gatewayId;
    const unsent = this.unsentTokens.get(gateway);
    if (unsent !== undefined) unsent.push(frame);
    else {
      if (this.unsentTokens.size === 0) queueMicrotask(this.flushTokens);
      this.unsentTokens.set(gateway, [frame]);
    }
  }

  /**
   * Sends this turn's tokens frames at the end of the turn, one message per gateway (every step
   * that ended in the turn, over all this process's instances): a lone frame on its request's
   * inbox, several as one `tokens-batch` on the gateway's batch subject. Called before any other
   * frame is sent, so none overtakes a request's tokens.
   */
  private readonly flushTokens = (): void => {
    for (const [gateway, frames] of this.unsentTokens) {
      if (frames.length === 1) this.bus.publish(subjects.inbox(gateway, frames[0]!.requestId), frames[0]);
      else for (let i = 0; i < frames.length; i += TOKENS_BATCH_MAX_FRAMES) this.bus.publish(subjects.inboxTokens(gateway), { type: 'tokens-batch', frames: frames.slice(i, i + TOKENS_BATCH_MAX_FRAMES) } satisfies TokensBatchFrame);
    }
    this.unsentTokens.clear();
  };

  private sendFrame(replyTo: string, frame: EndFrame | ErrorFrame): void {
    this.flushTokens();
    this.bus.publish(replyTo, frame);
  }

  completed(instance: Instance, held: LiveHeld, completion: WorkerCompletion, atUs: Micros): void {
    const realMs = (us: number) => this.clock.realSeconds(us) * 1000;
    const end: EndFrame = {
      type: 'end',
      requestId: held.id,
      attempt: held.request.attempt,
      reason: 'ok',
      outputTokens: completion.outputTokens,
      instanceId: instance.instanceId,
      timings: { ...held.request.timings, workerQueueMs: realMs(completion.workerQueueUs), prefillMs: realMs(completion.prefillUs), decodeMs: realMs(completion.decodeUs) },
    };
    stampSent(end.timings);
    this.sendFrame(held.request.replyTo, end);
    const m = this.metrics;
    const l = labels(instance);
    m.requestSuccess.inc({ ...l, finished_reason: 'length' });
    m.e2e.observe(l, this.clock.realSeconds(atUs - held.workerArrivalUs));
    m.queueTime.observe(l, this.clock.realSeconds(completion.workerQueueUs));
    m.prefillTime.observe(l, this.clock.realSeconds(completion.prefillUs));
    m.decodeTime.observe(l, this.clock.realSeconds(completion.decodeUs));
    m.requestPromptTokens.observe(l, held.inputTokens);
    m.requestGenerationTokens.observe(l, completion.outputTokens);
    this.phaseSpans(held, completion, atUs);
    held.span?.setAttributes({ 'gen_ai.usage.output_tokens': completion.outputTokens, 'sluice.worker.outcome': 'completed' });
    held.span?.end(this.wallMs(atUs));
  }

  failed(_instance: Instance, held: LiveHeld, reason: OutcomeReason, message: string): void {
    held.span?.setAttribute('sluice.worker.outcome', reason);
    held.span?.end();
    const frame: ErrorFrame = { type: 'error', requestId: held.id, attempt: held.request.attempt, stage: 'worker', reason, message };
    this.sendFrame(held.request.replyTo, frame);
  }

  cancelled(_instance: Instance, held: LiveHeld, atUs: Micros): void {
    held.span?.setAttribute('sluice.worker.outcome', 'cancelled');
    held.span?.end(this.wallMs(atUs));
  }

  handedBack(instance: Instance, held: LiveHeld, atUs: Micros): void {
    held.span?.setAttribute('sluice.worker.outcome', 'handed_back');
    held.span?.end(this.wallMs(atUs));
    this.flushTokens();
    sendMigrateFrame(this.bus, held.request, instance.instanceId, 'worker_draining', 'router');
  }

  done(instance: Instance, held: LiveHeld, reason: OutcomeReason, atUs: Micros): void {
    const done: RequestDone = { requestId: held.id, instanceId: instance.instanceId, reason, atUs: this.clock.wallUs(atUs) };
    this.bus.publish(subjects.workerDone(instance.instanceId), done);
  }

  kv(instance: Instance, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros): void {
    const event: KvEvent = { instanceId: instance.instanceId, atUs: this.clock.wallUs(atUs), stored: [...stored], removed: [...removed] };
    this.bus.publish(subjects.workerKv(instance.instanceId), event);
  }

  load(instance: Instance, snapshot: EngineSnapshot, atUs: Micros): void {
    const { instanceId, workerId, rank } = instance.identity;
    // The failure count is for metrics, not a routing signal: the wire's snapshot keeps its fields.
    const { kvAllocationFailures: _counted, ...signals } = snapshot;
    const published: LoadSnapshot = { instanceId, workerId, rank, atUs: this.clock.wallUs(atUs), ...signals };
    this.bus.publish(subjects.workerLoad(instanceId), published);
    const l = labels(instance);
    this.metrics.running.set(l, snapshot.batchSize);
    this.metrics.waiting.set(l, snapshot.queueDepth);
    this.metrics.kvUsage.set(l, snapshot.kvUtilization);
  }

  lifecycle(instance: Instance, type: LifecycleEvent['type'], atUs: Micros): void {
    const event: LifecycleEvent = { ...instance.identity, type, atUs: this.clock.wallUs(atUs) };
    this.bus.publish(subjects.workerLifecycle(instance.instanceId), event);
  }

  wakeInstance(instance: Instance, kind: InstanceWakeUp, atUs: Micros): void {
    this.wakeUps.wakeAt(instance, kind, atUs);
  }

  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void {
    this.tick(kind, atUs);
  }

  private wallMs(engineUs: Micros): number {
    return this.clock.wallUs(engineUs) / 1000;
  }

  /** queued → prefill → decode as child spans, stamped after the fact with the engine's times. */
  private phaseSpans(held: LiveHeld, completion: WorkerCompletion, endUs: Micros): void {
    if (!held.span) return;
    const parent = trace.setSpan(context.active(), held.span);
    const phase = (name: string, fromUs: number, toUs: number, attributes: Record<string, number> = {}) =>
      this.tracer.startSpan(name, { startTime: this.wallMs(micros(fromUs)), attributes }, parent).end(this.wallMs(micros(toUs)));
    const admittedUs = held.workerArrivalUs + completion.workerQueueUs;
    const firstTokenUs = admittedUs + completion.prefillUs;
    phase('worker.queued', held.workerArrivalUs, admittedUs);
    phase('worker.prefill', admittedUs, firstTokenUs, {
      'sluice.worker.cached_tokens': held.cachedTokens,
      'sluice.worker.prefill_tokens': held.inputTokens - held.cachedTokens,
    });
    phase('worker.decode', firstTokenUs, endUs, { 'gen_ai.usage.output_tokens': completion.outputTokens });
  }
}

/** One label value per instance: its data-parallel rank, as vLLM's `engine` label. */
function labels(instance: Instance): { model_name: string; engine: string } {
  return { model_name: instance.identity.model, engine: String(instance.rank) };
}

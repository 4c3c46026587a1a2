import { sendMigrateFrame, stampSent, type Bus } from '@sluice/bus';
import {
  BLOCK_SIZE,
  httpStatusOf,
  micros,
  subjects,
  TOKENS_BATCH_MAX_FRAMES,
  type BlockId,
  type EndFrame,
  type ErrorFrame,
  type KvEvent,
  type LifecycleEvent,
  type PrefillJob,
  type Prefilled,
  type LoadSnapshot,
  type Micros,
  type OutcomeReason,
  type RequestDone,
  type TokensBatchFrame,
  type TokensFrame,
} from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { FinishedTransfer, InstanceCore, InstanceWakeUp, KvTransfer, WorkerCompletion, WorkerEffects, WorkerWakeUp } from '@sluice/stages';
import { bindKvTransfer, type BoundKvTransferMetrics, type KvTransferMetrics } from './kv-transfer.metrics.js';
import { SpanKind, context, natsProcessAttributes, trace, type Tracer } from '@sluice/telemetry';
import type { DirectReplies } from './direct-replies.js';
import type { LiveHeld } from './live-held.js';
import type { RealTimeWakeUps } from './real-time-wake-ups.js';
import { bindEngine, bindHttp, cacheConfigInfo, type EngineMetrics, type HttpMetrics, type HttpStatusGroup, type WorkerMetrics } from './worker.metrics.js';

/** The worker's engine clock against the wall clock: the engine runs `timeScale` times faster. */
export interface EngineClock {
  /** Engine µs → epoch µs (what the wire carries). */
  wallUs(engineUs: Micros): Micros;
  /** Engine µs → real seconds (metrics are real durations). */
  realSeconds(engineUs: number): number;
}

type Instance = InstanceCore<LiveHeld>;

/**
 * The handler a vLLM pod's API server would count a request under. The bus request does not say
 * which OpenAI endpoint it came in on (libs/contracts InferenceRequest), so every one counts as a
 * completion.
 */
const HANDLER = '/v1/completions';

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
  /** Each instance's series, bound once (see `bind`). */
  private readonly engines = new Map<Instance, EngineMetrics>();
  /** Each instance's NIXL series, when the instances are disaggregated. */
  private readonly transfers = new Map<Instance, BoundKvTransferMetrics>();
  private readonly http: HttpMetrics;

  constructor(
    private readonly bus: Bus,
    private readonly tracer: Tracer,
    private readonly metrics: WorkerMetrics,
    private readonly clock: EngineClock,
    private readonly wakeUps: RealTimeWakeUps,
    /** The worker's own ticks (load snapshots, heartbeats). */
    private readonly tick: (kind: WorkerWakeUp, atUs: Micros) => void,
    /** Disaggregated: the NIXL families, and what to do when a prefill instance does not take a job. */
    private readonly disaggregated?: {
      readonly metrics: KvTransferMetrics;
      readonly refused: (instance: Instance, requestId: string) => void;
    },
    /** Requests served on an instance's own HTTP port (worker.http): their frames go to their HTTP answers, not the bus. */
    private readonly direct?: DirectReplies,
    /** Told of each lifecycle event before it is published: opens or closes the instance's submit subject (instance-intakes.ts). */
    private readonly intakes?: { follow(instanceId: string): void },
  ) {
    this.http = bindHttp(metrics);
  }

  /** Creates the instance's series, every one at zero, so a scrape shows them before its first request. */
  bind(instance: Instance): EngineMetrics {
    let bound = this.engines.get(instance);
    if (!bound) {
      const { model, totalKvBlocks } = instance.identity;
      bound = bindEngine(this.metrics, model, String(instance.rank), cacheConfigInfo(BLOCK_SIZE, totalKvBlocks));
      this.engines.set(instance, bound);
      if (this.disaggregated) this.transfers.set(instance, bindKvTransfer(this.disaggregated.metrics, model, String(instance.rank)));
    }
    return bound;
  }

  received(instance: Instance, held: LiveHeld, atUs: Micros): void {
    const { request } = held;
    const job = held.prefillFor !== undefined;
    held.span = this.tracer.startSpan(
      job ? 'worker.prefill_job' : 'worker.request',
      {
        kind: SpanKind.CONSUMER,
        startTime: this.wallMs(atUs),
        attributes: {
          // An instance's own subject, no queue group: the router chose the instance.
          ...natsProcessAttributes(job ? subjects.workerPrefill(instance.instanceId) : subjects.workerSubmit(instance.instanceId)),
          ...(job && { 'sluice.pd.decode_instance': held.prefillFor }),
          ...(held.prefillInstanceId !== undefined && { 'sluice.pd.prefill_instance': held.prefillInstanceId }),
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

  accepted(): void {
    // Prompt tokens count when the request first enters the batch (see admitted).
  }

  hung(_instance: Instance, held: LiveHeld): void {
    held.span?.setAttribute('sluice.worker.hang', true);
  }

  /**
   * Every admission looks the prompt up in the prefix cache (again after a preemption). The
   * prompt's tokens count once, at the first: what the cache held, and what the engine computes
   * (vLLM's PromptTokenStats: local_compute + local_cache_hit; no KV transfer in sluice).
   */
  admitted(instance: Instance, held: LiveHeld, cachedTokens: number, first: boolean): void {
    const m = this.bind(instance);
    m.prefixQueries.inc(held.inputTokens);
    m.prefixHits.inc(cachedTokens);
    if (!first) return;
    // What a KV transfer brought counts as vLLM's external source (its connector's blocks).
    const transferred = Math.min(cachedTokens, held.transferredBlocks * BLOCK_SIZE);
    m.promptTokens.inc(held.inputTokens);
    m.promptTokensCached.inc(cachedTokens);
    m.promptTokensLocalCacheHit.inc(cachedTokens - transferred);
    m.promptTokensExternal.inc(transferred);
    // With a KV connector (disaggregated), vLLM asks it for every prompt: the hits are what it loaded.
    if (this.disaggregated) {
      m.externalPrefixQueries.inc(held.inputTokens);
      m.externalPrefixHits.inc(transferred);
    }
    m.promptTokensLocalCompute.inc(held.inputTokens - cachedTokens);
  }

  preempted(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.bind(instance).preemptions.inc();
    held.preemptions++;
    held.span?.addEvent('preempted', { 'sluice.worker.generated_tokens': held.generated }, this.wallMs(atUs));
  }

  /**
   * One observation per step: the tokens it computed, prefill (cache misses only) plus decode, as
   * vLLM's iteration_tokens_total. Then the sampled KV blocks the step evicted, if any.
   */
  stepEnded(instance: Instance, result: StepResult<LiveHeld>, _tokenUs: Micros): void {
    this.finishing = result.completed;
    const m = this.bind(instance);
    m.iterationTokens.observe(result.prefillTokens + result.decodeTokens);
    if (result.kvAllocationFailures > 0) m.kvAllocationFailures.inc(result.kvAllocationFailures);
    if (result.kvResidency) this.residency(m, result.kvResidency);
  }

  private residency(m: EngineMetrics, observed: NonNullable<StepResult['kvResidency']>): void {
    const seconds = (us: number) => this.clock.realSeconds(us);
    for (const us of observed.lifetimesUs) m.kvBlockLifetime?.observe(seconds(us));
    for (const us of observed.idleUs) m.kvBlockIdleBeforeEvict?.observe(seconds(us));
    for (const us of observed.reuseGapsUs) m.kvBlockReuseGap?.observe(seconds(us));
  }

  tokens(instance: Instance, held: LiveHeld, count: number, atUs: Micros, previousUs: Micros | undefined): void {
    const m = this.bind(instance);
    if (previousUs === undefined) m.ttft.observe(this.clock.realSeconds(atUs - held.workerArrivalUs));
    else m.itl.observe(this.clock.realSeconds(atUs - previousUs));
    m.generationTokens.inc(count);
    // The step's last tokens ride in the end frame that follows at once (it says how many the attempt made).
    if (this.finishing.includes(held.id)) return;
    const frame: TokensFrame = { type: 'tokens', requestId: held.id, attempt: held.request.attempt, count, generated: held.generated, atMs: this.wallMs(atUs), instanceId: instance.instanceId };
    if (this.direct?.deliver(frame)) return;
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
    if (this.direct?.deliver(frame)) return;
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
      cachedTokens: held.cachedTokens,
      instanceId: instance.instanceId,
      timings: { ...held.request.timings, workerQueueMs: realMs(completion.workerQueueUs), prefillMs: realMs(completion.prefillUs), decodeMs: realMs(completion.decodeUs) },
    };
    stampSent(end.timings);
    this.sendFrame(held.request.replyTo, end);
    this.finishedMetrics(instance, held, completion, atUs);
    this.phaseSpans(held, completion, atUs);
    held.span?.setAttributes({ 'gen_ai.usage.output_tokens': completion.outputTokens, 'sluice.worker.outcome': 'completed' });
    held.span?.end(this.wallMs(atUs));
  }

  /**
   * A request the worker ends with an error. A vLLM pod refuses what it cannot serve (a prompt too
   * long, an invalid request, a rate limit) in its API server, before the engine: a 4xx and no
   * finished request. A server fault (5xx) is a request the engine finished with `error`.
   */
  failed(instance: Instance, held: LiveHeld, reason: OutcomeReason, message: string, atUs: Micros): void {
    const status = statusGroup(httpStatusOf(reason));
    if (status === '5xx') this.bind(instance).finished.error.inc();
    this.http.served(HANDLER, status, this.clock.realSeconds(atUs - held.workerArrivalUs));
    held.span?.setAttribute('sluice.worker.outcome', reason);
    held.span?.end();
    const frame: ErrorFrame = { type: 'error', requestId: held.id, attempt: held.request.attempt, stage: 'worker', reason, message };
    this.sendFrame(held.request.replyTo, frame);
  }

  /**
   * Its gateway let it go (the client gone, the deadline passed, a newer attempt): vLLM's `abort`.
   * Its HTTP status is 2xx: a vLLM pod's streaming response starts with its 200 at once.
   */
  cancelled(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.aborted(instance, held, atUs);
    held.span?.setAttribute('sluice.worker.outcome', 'cancelled');
    held.span?.end(this.wallMs(atUs));
  }

  /** The instance goes away with it unfinished: aborted here (it continues elsewhere). */
  handedBack(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.aborted(instance, held, atUs);
    held.span?.setAttribute('sluice.worker.outcome', 'handed_back');
    held.span?.end(this.wallMs(atUs));
    // A request on the instance's own port has no gateway to continue it elsewhere: it ends here.
    if (this.direct?.deliver({ type: 'error', requestId: held.id, attempt: held.request.attempt, stage: 'worker', reason: 'shutdown', message: 'the worker shut down before the request finished' })) return;
    this.flushTokens();
    sendMigrateFrame(this.bus, held.request, instance.instanceId, 'worker_draining', 'router');
  }

  done(instance: Instance, held: LiveHeld, reason: OutcomeReason, atUs: Micros): void {
    const done: RequestDone = { requestId: held.id, instanceId: instance.instanceId, reason, atUs: this.clock.wallUs(atUs), ...(held.prefillFor !== undefined && { prefillOnly: true as const }) };
    this.bus.publish(subjects.workerDone(instance.instanceId), done);
  }

  /** The prompt goes to its prefill instance as a job, acked like any handoff; one not taken is prefilled here. */
  prefillRequested(instance: Instance, held: LiveHeld, prefillInstanceId: string, atUs: Micros): void {
    held.span?.addEvent('prefill_requested', { 'sluice.pd.prefill_instance': prefillInstanceId }, this.wallMs(atUs));
    // The job is the request less its own remote-prefill pick: the prefill instance runs the prompt itself.
    const { prefillInstanceId: _itself, ...request } = held.request;
    const job: PrefillJob = { request, decodeInstanceId: instance.instanceId };
    void this.bus.handoff(subjects.workerPrefill(prefillInstanceId), job, held.id, held.request.attempt).then((result) => {
      if (!result.ok) this.disaggregated?.refused(instance, held.id);
    });
  }

  /** Tells the decode instance its prompt is prefilled (or not); a finished job counts as a vLLM prefill pod counts it. */
  prefilled(instance: Instance, job: LiveHeld, outcome: 'ok' | 'failed', atUs: Micros, completion?: WorkerCompletion): void {
    const answer: Prefilled = { requestId: job.id, attempt: job.request.attempt, prefillInstanceId: instance.instanceId, decodeInstanceId: job.prefillFor!, outcome, atUs: this.clock.wallUs(atUs) };
    this.bus.publish(subjects.workerPrefilled(job.prefillFor!), answer);
    if (completion) {
      // Its one sampled token, as a vLLM prefill instance counts the max_tokens=1 request it serves.
      const m = this.bind(instance);
      m.ttft.observe(this.clock.realSeconds(completion.workerQueueUs + completion.prefillUs));
      m.generationTokens.inc(completion.outputTokens);
      this.finishedMetrics(instance, job, completion, atUs);
    }
    job.span?.setAttribute('sluice.worker.outcome', outcome === 'ok' ? 'prefilled' : 'prefill_failed');
    job.span?.end(this.wallMs(atUs));
  }

  transferStarted(_instance: Instance, held: LiveHeld, transfer: KvTransfer): void {
    held.span?.addEvent('kv_transfer_started', { 'sluice.pd.transfer_blocks': transfer.blocks }, this.wallMs(transfer.startUs));
  }

  /** The transfer as a child span of the request's (start → landing) and vLLM's NIXL observations on this, the pulling, instance. */
  transferEnded(instance: Instance, held: LiveHeld, finished: FinishedTransfer, atUs: Micros): void {
    const { transfer, observation } = finished;
    if (observation) this.transfers.get(instance)?.observe(observation);
    if (!held.span) return;
    const parent = trace.setSpan(context.active(), held.span);
    this.tracer
      .startSpan(
        'worker.kv_transfer',
        {
          startTime: this.wallMs(transfer.startUs),
          attributes: {
            'sluice.pd.prefill_instance': transfer.prefillInstanceId,
            'sluice.pd.decode_instance': transfer.decodeInstanceId,
            'sluice.pd.transfer_blocks': transfer.blocks,
            'sluice.pd.transfer_bytes': observation?.bytesTransferred ?? 0,
          },
        },
        parent,
      )
      .end(this.wallMs(atUs));
  }

  transferFailed(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.transfers.get(instance)?.failedTransfers.inc();
    held.span?.addEvent('kv_transfer_failed', {}, this.wallMs(atUs));
  }

  prefillLocally(instance: Instance, held: LiveHeld, why: 'prefill_failed' | 'prefill_refused', atUs: Micros): void {
    held.span?.addEvent('prefill_local', { 'sluice.pd.why': why, 'sluice.worker.instance': instance.instanceId }, this.wallMs(atUs));
  }

  kv(instance: Instance, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros, cleared = false): void {
    const event: KvEvent = { instanceId: instance.instanceId, atUs: this.clock.wallUs(atUs), stored: [...stored], removed: [...removed], ...(cleared ? { cleared: true as const } : {}) };
    this.bus.publish(subjects.workerKv(instance.instanceId), event);
  }

  load(instance: Instance, snapshot: EngineSnapshot, atUs: Micros): void {
    const { instanceId, workerId, rank } = instance.identity;
    // The failure count is for metrics, not a routing signal: the wire's snapshot keeps its fields.
    const { kvAllocationFailures: _counted, waitingForCapacity, ...signals } = snapshot;
    const published: LoadSnapshot = { instanceId, workerId, rank, atUs: this.clock.wallUs(atUs), ...signals };
    this.bus.publish(subjects.workerLoad(instanceId), published);
    const m = this.bind(instance);
    m.running.set(snapshot.batchSize);
    m.waiting.set(snapshot.queueDepth);
    // The wait queue waits for room in the batch (capacity); the rest of the queued requests are
    // in their modelled queueing delay (deferred). The two sum to the waiting gauge.
    m.waitingCapacity.set(waitingForCapacity);
    m.waitingDeferred.set(snapshot.queueDepth - waitingForCapacity);
    m.kvUsage.set(snapshot.kvUtilization);
  }

  lifecycle(instance: Instance, type: LifecycleEvent['type'], atUs: Micros): void {
    this.intakes?.follow(instance.instanceId);
    const event: LifecycleEvent = { ...instance.identity, type, atUs: this.clock.wallUs(atUs) };
    this.bus.publish(subjects.workerLifecycle(instance.instanceId), event);
  }

  wakeInstance(instance: Instance, kind: InstanceWakeUp, atUs: Micros): void {
    this.wakeUps.wakeAt(instance, kind, atUs);
  }

  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void {
    this.tick(kind, atUs);
  }

  /**
   * What vLLM observes of a finished request (vllm/v1/metrics/stats.py, finished-request stats):
   * its phases (queue: arrival → first admission; prefill: → first token; decode: → last token;
   * inference: prefill + decode), its sizes, its parameters (n is always 1), its preemptions, and
   * the mean time per output token after the first (0 for a request of one token, as vLLM records it).
   * The pod's API server counts it 2xx.
   */
  private finishedMetrics(instance: Instance, held: LiveHeld, completion: WorkerCompletion, atUs: Micros): void {
    const m = this.bind(instance);
    const seconds = (us: number) => this.clock.realSeconds(us);
    const { outputTokens, prefillUs, decodeUs } = completion;
    m.finished.length.inc();
    m.e2e.observe(seconds(atUs - held.workerArrivalUs));
    m.queueTime.observe(seconds(completion.workerQueueUs));
    m.prefillTime.observe(seconds(prefillUs));
    m.decodeTime.observe(seconds(decodeUs));
    m.inferenceTime.observe(seconds(prefillUs + decodeUs));
    m.timePerOutputToken.observe(outputTokens > 1 ? seconds(decodeUs) / (outputTokens - 1) : 0);
    m.requestPromptTokens.observe(held.inputTokens);
    m.requestGenerationTokens.observe(outputTokens);
    m.maxNumGenerationTokens.observe(outputTokens);
    // vLLM observes max_tokens only when the request set it (a truthy value).
    if (held.maxTokens > 0) m.paramsMaxTokens.observe(held.maxTokens);
    m.paramsN.observe(1);
    m.numPreemptions.observe(held.preemptions);
    m.prefillKvComputedTokens.observe(held.inputTokens - held.cachedTokens);
    this.http.served(HANDLER, '2xx', seconds(atUs - held.workerArrivalUs));
  }

  private aborted(instance: Instance, held: LiveHeld, atUs: Micros): void {
    this.bind(instance).finished.abort.inc();
    this.http.served(HANDLER, '2xx', this.clock.realSeconds(atUs - held.workerArrivalUs));
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

/** prometheus-fastapi-instrumentator groups statuses by their first digit. */
function statusGroup(status: number): HttpStatusGroup {
  return status >= 500 ? '5xx' : status >= 400 ? '4xx' : '2xx';
}

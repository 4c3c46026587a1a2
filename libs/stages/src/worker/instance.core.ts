import { WorkerFaultsSchema, micros, type InstanceIdentity, type Micros, type OutcomeReason, type WorkerFaults } from '@sluice/contracts';
import type { EngineSnapshot, StepResult, VllmEngine } from '@sluice/engine';
import type { HeldRequest, WorkerCompletion } from './held-request.js';
import { RemotePrefills } from './remote-prefills.js';
import type { InstanceWakeUp, WorkerEffects } from './worker.effects.js';
import type { KvTransferSettings } from './worker.settings.js';

const INJECTED: Record<WorkerFaults['failureTypes'][number], { reason: OutcomeReason; message: string }> = {
  rate_limit: { reason: 'injected_rate_limit', message: 'injected failure: rate limit exceeded' },
  server_error: { reason: 'injected_server_error', message: 'injected failure: internal server error' },
  invalid_request: { reason: 'injected_invalid_request', message: 'injected failure: invalid request' },
};

/**
 * One synthetic GPU instance as the worker stage runs it: its engine, its fault knobs (slow-down,
 * failure injection, hang, as llm-d-inference-sim has them) and the requests it holds. Steps run
 * back to back: when one ends the next starts at its end time, not when a driver got round to it,
 * so the schedule never drifts; an idle instance waits for its next request to leave its queueing
 * delay. Every step's state changes apply at its start, its tokens are due at its end plus α2
 * (docs/behaviour.md §1). Pure: the caller passes the time; effects go through `WorkerEffects`.
 */
export class InstanceCore<H extends HeldRequest> {
  private readonly held = new Map<string, H>();
  /** Accepted while `hang` was on: never scheduled. */
  private readonly hung = new Map<string, H>();
  private faults: WorkerFaults = WorkerFaultsSchema.parse({});
  /** The step under way, and when it ends (slow-down included). */
  private step: StepResult<H> | undefined;
  private stepEndUs: Micros | undefined;
  /** The pending wake-up for a request leaving its queueing delay. */
  private readyAtUs: Micros | undefined;
  /** Requests prefilled elsewhere, before they reach the engine (a decode instance); none unless disaggregated. */
  private readonly remote: RemotePrefills<H> | undefined;
  /** The pending wake-up for the next KV transfer to land. */
  private landingAtUs: Micros | undefined;

  constructor(
    readonly identity: InstanceIdentity,
    private engine: VllmEngine<H>,
    private readonly effects: WorkerEffects<H>,
    private readonly random: () => number,
    /** Publish a load snapshot on every change (loadIntervalMs = 0): each arrival, step start and cancel. */
    private readonly publishOnChange: boolean,
    /** What a KV transfer here costs: present when the deployment is disaggregated. */
    kvTransfer?: KvTransferSettings,
  ) {
    this.remote = kvTransfer && new RemotePrefills<H>(kvTransfer);
  }

  get instanceId(): string {
    return this.identity.instanceId;
  }

  get rank(): number {
    return this.identity.rank;
  }

  get slowdown(): number {
    return this.faults.slowdown;
  }

  currentFaults(): WorkerFaults {
    return this.faults;
  }

  /** Changes the named knobs; the others keep their values. */
  setFaults(change: Partial<WorkerFaults>): WorkerFaults {
    this.faults = WorkerFaultsSchema.parse({ ...this.faults, ...change });
    return this.faults;
  }

  /** A request reached the instance: fault knobs, then the engine's queue (or a clear refusal). */
  accept(request: H, nowUs: Micros): void {
    request.workerArrivalUs = nowUs;
    request.admittedUs = undefined;
    request.cachedTokens = 0;
    request.firstTokenUs = undefined;
    request.lastTokenUs = undefined;
    request.generated = 0;
    request.gone = false;
    request.transferredBlocks = 0;
    this.effects.received(this, request, nowUs);
    if (this.faults.failureRate > 0 && this.random() < this.faults.failureRate) {
      const type = this.faults.failureTypes[Math.floor(this.random() * this.faults.failureTypes.length)] ?? 'server_error';
      this.fail(request, INJECTED[type].reason, INJECTED[type].message, nowUs);
      return;
    }
    if (this.faults.hang) {
      this.hung.set(request.id, request);
      this.effects.hung(this, request);
      return;
    }
    if (this.remote && request.prefillInstanceId !== undefined && request.prefillFor === undefined) {
      // Disaggregated: its prompt is prefilled on the router's prefill pick first (llm-d's
      // sidecar and Dynamo's decode worker send it there from the decode side, as here).
      this.remote.await(request);
      this.effects.prefillRequested(this, request, request.prefillInstanceId, nowUs);
      return;
    }
    this.enqueue(request, nowUs);
  }

  /**
   * A prefill job reached this instance (disaggregated prefill/decode). A copy of a job it already
   * runs is not run twice; a job of a newer attempt supersedes the older attempt's, which is
   * dropped first (its cancel may come after the new job: the two travel by different paths).
   * False when it was not taken.
   */
  acceptPrefillJob(job: H, nowUs: Micros): boolean {
    const held = this.holding(job.id);
    if (held) {
      if (held.attempt >= job.attempt) return false;
      this.cancel(job.id, 'cancelled', nowUs);
    }
    this.accept(job, nowUs);
    return true;
  }

  /** Into the engine's queue (its queueing delay starts now), or a clear refusal. */
  private enqueue(request: H, nowUs: Micros): void {
    const result = this.engine.enqueue(request, nowUs);
    if (!result.accepted) {
      this.fail(request, 'unservable', result.message, nowUs);
      return;
    }
    this.held.set(request.id, request);
    this.effects.accepted(this, request, nowUs);
    this.loadChanged(nowUs);
    if (this.step === undefined) this.plan(nowUs);
  }

  /**
   * Its prefill instance answered for a request waiting here (docs/behaviour.md §1,
   * "Disaggregated prefill/decode"): prefilled, so the prompt blocks this instance lacks start
   * moving and the request joins the queue when they land; failed, so it is prefilled here. The
   * prefix this instance already holds is not moved (Dynamo and llm-d both transfer only the
   * blocks the decode side misses). False if nothing here waits for it (cancelled meanwhile).
   */
  prefilled(requestId: string, outcome: 'ok' | 'failed', prefillInstanceId: string, nowUs: Micros): boolean {
    const request = this.remote?.takeAwaiting(requestId);
    if (!request || !this.remote) return false;
    if (outcome === 'failed') {
      this.effects.prefillLocally(this, request, 'prefill_failed', nowUs);
      this.enqueue(request, nowUs);
      return true;
    }
    const blocks = request.blockHashes.length - this.engine.cachedPrefixBlocks(request.blockHashes);
    const transfer = this.remote.startTransfer(request, prefillInstanceId, this.instanceId, blocks, nowUs);
    this.effects.transferStarted(this, request, transfer);
    this.land(nowUs);
    return true;
  }

  /** The prefill instance did not take the job (no responder, a nack): this instance prefills the prompt itself. */
  prefillRefused(requestId: string, nowUs: Micros): boolean {
    const request = this.remote?.takeAwaiting(requestId);
    if (!request) return false;
    this.effects.prefillLocally(this, request, 'prefill_refused', nowUs);
    this.enqueue(request, nowUs);
    return true;
  }

  /** Transfers due by now land (their blocks become cached prefix, their requests queue); then the next landing is awaited. */
  private land(nowUs: Micros): void {
    if (!this.remote) return;
    for (const { request, finished } of this.remote.landed(nowUs)) {
      this.engine.importKvBlocks(request.blockHashes);
      request.transferredBlocks = finished.transfer.blocks;
      this.effects.transferEnded(this, request, finished, nowUs);
      this.enqueue(request, nowUs);
    }
    const next = this.remote.nextLandingUs();
    if (next === undefined || next === this.landingAtUs) return;
    this.landingAtUs = next;
    this.effects.wakeInstance(this, 'transfer', next);
  }

  /** The gateway let the request go: it leaves the engine (its KV blocks freed). False if not held here. */
  cancel(requestId: string, reason: OutcomeReason, nowUs: Micros): boolean {
    const hung = this.hung.get(requestId);
    if (hung) {
      this.hung.delete(requestId);
      this.effects.cancelled(this, hung, nowUs);
      this.effects.done(this, hung, reason, nowUs);
      return true;
    }
    const handingOff = this.remote?.remove(requestId);
    if (handingOff) {
      const { request, midTransfer } = handingOff;
      request.gone = true;
      if (midTransfer) this.effects.transferFailed(this, request, nowUs);
      this.effects.cancelled(this, request, nowUs);
      this.effects.done(this, request, reason, nowUs);
      return true;
    }
    const request = this.held.get(requestId);
    if (!request) return false;
    this.engine.cancel(requestId, nowUs);
    this.held.delete(requestId);
    request.gone = true;
    this.loadChanged(nowUs);
    this.effects.cancelled(this, request, nowUs);
    this.effects.done(this, request, reason, nowUs);
    return true;
  }

  holds(requestId: string): boolean {
    return this.holding(requestId) !== undefined;
  }

  /** The request it holds under that id (running, waiting, hung, or in a prefill hand-off), if any. */
  holding(requestId: string): H | undefined {
    return this.held.get(requestId) ?? this.hung.get(requestId) ?? this.remote?.holding(requestId);
  }


  /**
   * The instance goes away (a drain past its grace period): every request it still holds leaves
   * its engine and goes back to its gateway to continue elsewhere. Returns how many.
   */
  handBackAll(nowUs: Micros): number {
    const handingOff = this.remote?.removeAll() ?? [];
    for (const { request, midTransfer } of handingOff) if (midTransfer) this.effects.transferFailed(this, request, nowUs);
    const leaving = [...this.held.values(), ...this.hung.values(), ...handingOff.map((h) => h.request)];
    for (const request of leaving) {
      if (this.held.has(request.id)) this.engine.cancel(request.id, nowUs);
      this.held.delete(request.id);
      this.hung.delete(request.id);
      request.gone = true;
      // A prefill job is not its gateway's to continue: its decode instance prefills the prompt itself.
      if (request.prefillFor !== undefined) this.effects.prefilled(this, request, 'failed', nowUs);
      else this.effects.handedBack(this, request, nowUs);
      this.effects.done(this, request, 'cancelled', nowUs);
    }
    if (leaving.length > 0) this.loadChanged(nowUs);
    return leaving.length;
  }

  /** Anything in its queues or batch, or in a prefill hand-off (hung requests excepted: they never run). */
  hasWork(): boolean {
    return this.engine.hasWork() || (this.remote?.size ?? 0) > 0;
  }

  /** A wake-up it asked for: a step's end, or a request leaving its queueing delay. Stale ones are ignored. */
  wake(kind: InstanceWakeUp, atUs: Micros): void {
    switch (kind) {
      case 'step':
        if (this.step === undefined || atUs !== this.stepEndUs) return;
        this.endStep(this.step, atUs);
        this.plan(atUs);
        return;
      case 'ready':
        if (atUs !== this.readyAtUs) return;
        this.readyAtUs = undefined;
        if (this.step === undefined) this.plan(atUs);
        return;
      case 'transfer':
        if (atUs !== this.landingAtUs) return;
        this.landingAtUs = undefined;
        this.land(atUs);
        return;
    }
  }

  /**
   * The instance starts again after it was parked (scaled down): a new engine, with an empty cache
   * and counters from zero, as a restarted vLLM pod has. Only an instance that holds nothing.
   */
  coldStart(engine: VllmEngine<H>): void {
    if (this.hasWork() || this.hung.size > 0) throw new Error(`instance ${this.instanceId} cannot start cold while it holds requests`);
    this.engine = engine;
    this.step = undefined;
    this.stepEndUs = undefined;
    this.readyAtUs = undefined;
    this.landingAtUs = undefined;
  }

  /** The engine's counters and load now (what a load snapshot carries), for a driver's end-of-run report. */
  engineSnapshot(nowUs?: Micros): EngineSnapshot {
    return this.engine.snapshot(nowUs);
  }

  publishLoad(nowUs: Micros): void {
    this.effects.load(this, this.engine.snapshot(nowUs), nowUs);
  }

  /**
   * Throws if the engine's books do not balance, or if it holds work with neither a step nor a
   * wake-up pending (work would never be done): for tests and the twin's checked runs.
   */
  checkInvariants(): void {
    this.engine.checkInvariants();
    if (this.engine.hasWork() && this.step === undefined && this.readyAtUs === undefined) {
      throw new Error(`work conservation broken: ${this.instanceId} holds requests with no step or wake-up pending`);
    }
  }

  /** Starts a step at `atUs` if there is anything to do, else waits for the next request to be ready. */
  private plan(atUs: Micros): void {
    if (this.engine.canStep(atUs)) {
      this.beginStep(atUs);
      return;
    }
    const ready = this.engine.nextReadyUs();
    if (ready === undefined || (this.readyAtUs !== undefined && this.readyAtUs <= ready)) return;
    this.readyAtUs = ready;
    this.effects.wakeInstance(this, 'ready', ready);
  }

  private beginStep(startUs: Micros): void {
    const result = this.engine.step(startUs);
    this.step = result;
    this.stepEndUs = micros(startUs + result.durationUs * this.faults.slowdown);
    for (const { requestId, cachedTokens } of result.admitted) {
      const request = this.held.get(requestId);
      if (!request) continue;
      const first = request.admittedUs === undefined;
      if (first) {
        request.admittedUs = startUs;
        request.cachedTokens = cachedTokens;
      }
      this.effects.admitted(this, request, cachedTokens, first, startUs);
    }
    for (const requestId of result.preempted) {
      const request = this.held.get(requestId);
      if (request) this.effects.preempted(this, request, startUs);
    }
    if (result.kvStored.length > 0 || result.kvRemoved.length > 0) this.effects.kv(this, result.kvStored, result.kvRemoved, startUs);
    if (result.completed.length > 0) this.effects.completing?.(this, result.completed, startUs);
    this.loadChanged(startUs);
    this.effects.wakeInstance(this, 'step', this.stepEndUs);
  }

  /** The step's tokens are due now (plus α2): sent in batch order, then its completions. */
  private endStep(result: StepResult<H>, endUs: Micros): void {
    this.step = undefined;
    const tokenUs = micros(endUs + result.outputDelayUs);
    this.effects.stepEnded(this, result, tokenUs);
    for (const { request, count } of result.tokens) {
      if (count === 0 || request.gone) continue; // a prefill chunk, or cancelled during the step
      const previous = request.lastTokenUs;
      if (request.firstTokenUs === undefined) request.firstTokenUs = tokenUs;
      request.lastTokenUs = tokenUs;
      request.generated += count;
      // A prefill job's token is sampled and dropped, as a vLLM prefill instance's is: not the client's.
      if (request.prefillFor === undefined) this.effects.tokens(this, request, count, tokenUs, previous);
    }
    result.completed.forEach((requestId, i) => this.complete(requestId, tokenUs, result.itlSinceRestartUs?.[i]));
  }

  private complete(requestId: string, atUs: Micros, itlSinceRestartUs: number | undefined): void {
    const request = this.held.get(requestId);
    if (!request) return;
    this.held.delete(requestId);
    const admitted = request.admittedUs ?? atUs;
    // With max_tokens 0 a request is served by its prefill alone: no token, so its "first" is its end.
    const firstToken = request.firstTokenUs ?? atUs;
    const completion: WorkerCompletion = {
      outputTokens: request.generated,
      workerQueueUs: admitted - request.workerArrivalUs,
      prefillUs: firstToken - admitted,
      decodeUs: atUs - firstToken,
      ...(itlSinceRestartUs === undefined ? {} : { itlSinceRestartUs }),
    };
    if (request.prefillFor !== undefined) this.effects.prefilled(this, request, 'ok', atUs, completion);
    else this.effects.completed(this, request, completion, atUs);
    this.effects.done(this, request, 'ok', atUs);
  }

  private fail(request: H, reason: OutcomeReason, message: string, nowUs: Micros): void {
    // A prefill job that fails is its decode instance's to prefill, not an error for the client.
    if (request.prefillFor !== undefined) this.effects.prefilled(this, request, 'failed', nowUs);
    else this.effects.failed(this, request, reason, message, nowUs);
    this.effects.done(this, request, reason, nowUs);
  }

  private loadChanged(nowUs: Micros): void {
    if (this.publishOnChange) this.publishLoad(nowUs);
  }
}
